from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.available_transition import AvailableTransition
    from ..models.item_detail_fields_item import ItemDetailFieldsItem
    from ..models.item_detail_payload import ItemDetailPayload


T = TypeVar("T", bound="ItemDetail")


@_attrs_define
class ItemDetail:
    """An item through a view: detail fields, the payload the view shows, and the moves available.

    Attributes:
        fields (list[ItemDetailFieldsItem]): `{fieldId, key, type, label, value, editable, required}`, overrides
            applied.
        item_id (str):
        item_type (str):
        payload (ItemDetailPayload):
        transitions (list[AvailableTransition]):
        workbasket_id (str):
        workflow_configuration_id (str):
    """

    fields: list[ItemDetailFieldsItem]
    item_id: str
    item_type: str
    payload: ItemDetailPayload
    transitions: list[AvailableTransition]
    workbasket_id: str
    workflow_configuration_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fields = []
        for fields_item_data in self.fields:
            fields_item = fields_item_data.to_dict()
            fields.append(fields_item)

        item_id = self.item_id

        item_type = self.item_type

        payload = self.payload.to_dict()

        transitions = []
        for transitions_item_data in self.transitions:
            transitions_item = transitions_item_data.to_dict()
            transitions.append(transitions_item)

        workbasket_id = self.workbasket_id

        workflow_configuration_id = self.workflow_configuration_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fields": fields,
                "itemId": item_id,
                "itemType": item_type,
                "payload": payload,
                "transitions": transitions,
                "workbasketId": workbasket_id,
                "workflowConfigurationId": workflow_configuration_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.available_transition import AvailableTransition
        from ..models.item_detail_fields_item import ItemDetailFieldsItem
        from ..models.item_detail_payload import ItemDetailPayload

        d = dict(src_dict)
        fields = []
        _fields = d.pop("fields")
        for fields_item_data in _fields:
            fields_item = ItemDetailFieldsItem.from_dict(fields_item_data)

            fields.append(fields_item)

        item_id = d.pop("itemId")

        item_type = d.pop("itemType")

        payload = ItemDetailPayload.from_dict(d.pop("payload"))

        transitions = []
        _transitions = d.pop("transitions")
        for transitions_item_data in _transitions:
            transitions_item = AvailableTransition.from_dict(transitions_item_data)

            transitions.append(transitions_item)

        workbasket_id = d.pop("workbasketId")

        workflow_configuration_id = d.pop("workflowConfigurationId")

        item_detail = cls(
            fields=fields,
            item_id=item_id,
            item_type=item_type,
            payload=payload,
            transitions=transitions,
            workbasket_id=workbasket_id,
            workflow_configuration_id=workflow_configuration_id,
        )

        item_detail.additional_properties = d
        return item_detail

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
