from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="WorkflowConfigurationIntegrationsForms")


@_attrs_define
class WorkflowConfigurationIntegrationsForms:
    """
    Attributes:
        allowed_configuration_ids (list[UUID] | Unset): Only these form configurations may be used with the workflow.
    """

    allowed_configuration_ids: list[UUID] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        allowed_configuration_ids: list[str] | Unset = UNSET
        if not isinstance(self.allowed_configuration_ids, Unset):
            allowed_configuration_ids = []
            for allowed_configuration_ids_item_data in self.allowed_configuration_ids:
                allowed_configuration_ids_item = str(
                    allowed_configuration_ids_item_data
                )
                allowed_configuration_ids.append(allowed_configuration_ids_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if allowed_configuration_ids is not UNSET:
            field_dict["allowedConfigurationIds"] = allowed_configuration_ids

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        _allowed_configuration_ids = d.pop("allowedConfigurationIds", UNSET)
        allowed_configuration_ids: list[UUID] | Unset = UNSET
        if _allowed_configuration_ids is not UNSET:
            allowed_configuration_ids = []
            for allowed_configuration_ids_item_data in _allowed_configuration_ids:
                allowed_configuration_ids_item = UUID(
                    allowed_configuration_ids_item_data
                )

                allowed_configuration_ids.append(allowed_configuration_ids_item)

        workflow_configuration_integrations_forms = cls(
            allowed_configuration_ids=allowed_configuration_ids,
        )

        workflow_configuration_integrations_forms.additional_properties = d
        return workflow_configuration_integrations_forms

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
