from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FormConfigurationIntegrations")


@_attrs_define
class FormConfigurationIntegrations:
    """
    Attributes:
        allow_space_associations (bool | Unset):  Default: False.
        allow_workflow_starts (bool | Unset):  Default: False.
    """

    allow_space_associations: bool | Unset = False
    allow_workflow_starts: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allow_space_associations = self.allow_space_associations

        allow_workflow_starts = self.allow_workflow_starts

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if allow_space_associations is not UNSET:
            field_dict["allowSpaceAssociations"] = allow_space_associations
        if allow_workflow_starts is not UNSET:
            field_dict["allowWorkflowStarts"] = allow_workflow_starts

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        allow_space_associations = d.pop("allowSpaceAssociations", UNSET)

        allow_workflow_starts = d.pop("allowWorkflowStarts", UNSET)

        form_configuration_integrations = cls(
            allow_space_associations=allow_space_associations,
            allow_workflow_starts=allow_workflow_starts,
        )

        form_configuration_integrations.additional_properties = d
        return form_configuration_integrations

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
