from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="WorkflowConfigurationMetadataRule")


@_attrs_define
class WorkflowConfigurationMetadataRule:
    """
    Attributes:
        editable (bool):
        visible (bool):
    """

    editable: bool
    visible: bool

    def to_dict(self) -> dict[str, Any]:
        editable = self.editable

        visible = self.visible

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "editable": editable,
                "visible": visible,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        editable = d.pop("editable")

        visible = d.pop("visible")

        workflow_configuration_metadata_rule = cls(
            editable=editable,
            visible=visible,
        )

        return workflow_configuration_metadata_rule
