from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="WorkflowConfigurationTransition")


@_attrs_define
class WorkflowConfigurationTransition:
    """
    Attributes:
        id (UUID): A UUID v4.
        label (str): A `$.` path into the language bundle.
        target_workbasket_id (UUID): A UUID v4.
    """

    id: UUID
    label: str
    target_workbasket_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        label = self.label

        target_workbasket_id = str(self.target_workbasket_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "label": label,
                "targetWorkbasketId": target_workbasket_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        label = d.pop("label")

        target_workbasket_id = UUID(d.pop("targetWorkbasketId"))

        workflow_configuration_transition = cls(
            id=id,
            label=label,
            target_workbasket_id=target_workbasket_id,
        )

        workflow_configuration_transition.additional_properties = d
        return workflow_configuration_transition

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
