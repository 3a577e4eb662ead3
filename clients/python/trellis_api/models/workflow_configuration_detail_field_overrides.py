from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkflowConfigurationDetailFieldOverrides")


@_attrs_define
class WorkflowConfigurationDetailFieldOverrides:
    """Set flags win over the form field's own.

    Attributes:
        editable (bool | Unset):
        required (bool | Unset):
        visible (bool | Unset):
    """

    editable: bool | Unset = UNSET
    required: bool | Unset = UNSET
    visible: bool | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        editable = self.editable

        required = self.required

        visible = self.visible

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if editable is not UNSET:
            field_dict["editable"] = editable
        if required is not UNSET:
            field_dict["required"] = required
        if visible is not UNSET:
            field_dict["visible"] = visible

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        editable = d.pop("editable", UNSET)

        required = d.pop("required", UNSET)

        visible = d.pop("visible", UNSET)

        workflow_configuration_detail_field_overrides = cls(
            editable=editable,
            required=required,
            visible=visible,
        )

        return workflow_configuration_detail_field_overrides
