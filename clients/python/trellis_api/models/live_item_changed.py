from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.live_item_changed_change import LiveItemChangedChange

T = TypeVar("T", bound="LiveItemChanged")


@_attrs_define
class LiveItemChanged:
    """`item.changed`, to the item's creator and holders of a view of its workbasket (the one it left
    too, on a move).

        Attributes:
            change (LiveItemChangedChange): `STARTED`, `MOVED` or `UPDATED`.
            item_id (str):
            workbasket_id (str):
            workflow_configuration_id (str):
    """

    change: LiveItemChangedChange
    item_id: str
    workbasket_id: str
    workflow_configuration_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        change = self.change.value

        item_id = self.item_id

        workbasket_id = self.workbasket_id

        workflow_configuration_id = self.workflow_configuration_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "change": change,
                "itemId": item_id,
                "workbasketId": workbasket_id,
                "workflowConfigurationId": workflow_configuration_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        change = LiveItemChangedChange(d.pop("change"))

        item_id = d.pop("itemId")

        workbasket_id = d.pop("workbasketId")

        workflow_configuration_id = d.pop("workflowConfigurationId")

        live_item_changed = cls(
            change=change,
            item_id=item_id,
            workbasket_id=workbasket_id,
            workflow_configuration_id=workflow_configuration_id,
        )

        live_item_changed.additional_properties = d
        return live_item_changed

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
