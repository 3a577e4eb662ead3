from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ItemState")


@_attrs_define
class ItemState:
    """Where an item stands.

    Attributes:
        item_id (str):
        item_type (str):
        workbasket_id (str):
        workflow_configuration_id (str):
    """

    item_id: str
    item_type: str
    workbasket_id: str
    workflow_configuration_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        item_id = self.item_id

        item_type = self.item_type

        workbasket_id = self.workbasket_id

        workflow_configuration_id = self.workflow_configuration_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "itemId": item_id,
                "itemType": item_type,
                "workbasketId": workbasket_id,
                "workflowConfigurationId": workflow_configuration_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        item_id = d.pop("itemId")

        item_type = d.pop("itemType")

        workbasket_id = d.pop("workbasketId")

        workflow_configuration_id = d.pop("workflowConfigurationId")

        item_state = cls(
            item_id=item_id,
            item_type=item_type,
            workbasket_id=workbasket_id,
            workflow_configuration_id=workflow_configuration_id,
        )

        item_state.additional_properties = d
        return item_state

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
