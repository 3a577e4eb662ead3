from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.workflow_configuration_workbasket import (
        WorkflowConfigurationWorkbasket,
    )


T = TypeVar("T", bound="WorkflowConfigurationNetwork")


@_attrs_define
class WorkflowConfigurationNetwork:
    """
    Attributes:
        entry_workbasket_id (UUID): A UUID v4.
        workbaskets (list[WorkflowConfigurationWorkbasket]):
    """

    entry_workbasket_id: UUID
    workbaskets: list[WorkflowConfigurationWorkbasket]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entry_workbasket_id = str(self.entry_workbasket_id)

        workbaskets = []
        for workbaskets_item_data in self.workbaskets:
            workbaskets_item = workbaskets_item_data.to_dict()
            workbaskets.append(workbaskets_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entryWorkbasketId": entry_workbasket_id,
                "workbaskets": workbaskets,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_workbasket import (
            WorkflowConfigurationWorkbasket,
        )

        d = dict(src_dict)
        entry_workbasket_id = UUID(d.pop("entryWorkbasketId"))

        workbaskets = []
        _workbaskets = d.pop("workbaskets")
        for workbaskets_item_data in _workbaskets:
            workbaskets_item = WorkflowConfigurationWorkbasket.from_dict(
                workbaskets_item_data
            )

            workbaskets.append(workbaskets_item)

        workflow_configuration_network = cls(
            entry_workbasket_id=entry_workbasket_id,
            workbaskets=workbaskets,
        )

        workflow_configuration_network.additional_properties = d
        return workflow_configuration_network

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
