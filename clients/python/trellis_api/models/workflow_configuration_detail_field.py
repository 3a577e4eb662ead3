from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_detail_field_overrides import (
        WorkflowConfigurationDetailFieldOverrides,
    )


T = TypeVar("T", bound="WorkflowConfigurationDetailField")


@_attrs_define
class WorkflowConfigurationDetailField:
    """
    Attributes:
        field_key (str):
        overrides (WorkflowConfigurationDetailFieldOverrides | Unset): Set flags win over the form field's own.
    """

    field_key: str
    overrides: WorkflowConfigurationDetailFieldOverrides | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        field_key = self.field_key

        overrides: dict[str, Any] | Unset = UNSET
        if not isinstance(self.overrides, Unset):
            overrides = self.overrides.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fieldKey": field_key,
            }
        )
        if overrides is not UNSET:
            field_dict["overrides"] = overrides

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_detail_field_overrides import (
            WorkflowConfigurationDetailFieldOverrides,
        )

        d = dict(src_dict)
        field_key = d.pop("fieldKey")

        _overrides = d.pop("overrides", UNSET)
        overrides: WorkflowConfigurationDetailFieldOverrides | Unset
        if isinstance(_overrides, Unset):
            overrides = UNSET
        else:
            overrides = WorkflowConfigurationDetailFieldOverrides.from_dict(_overrides)

        workflow_configuration_detail_field = cls(
            field_key=field_key,
            overrides=overrides,
        )

        workflow_configuration_detail_field.additional_properties = d
        return workflow_configuration_detail_field

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
