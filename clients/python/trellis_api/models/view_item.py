from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.view_item_fields import ViewItemFields


T = TypeVar("T", bound="ViewItem")


@_attrs_define
class ViewItem:
    """An item in a view listing: its `listFields` by field key.

    Attributes:
        configuration_id (str):
        created_at (datetime.datetime):
        fields (ViewItemFields):
        item_id (str):
        item_type (str):
        updated_at (datetime.datetime):
        workbasket_id (str):
    """

    configuration_id: str
    created_at: datetime.datetime
    fields: ViewItemFields
    item_id: str
    item_type: str
    updated_at: datetime.datetime
    workbasket_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        configuration_id = self.configuration_id

        created_at = self.created_at.isoformat()

        fields = self.fields.to_dict()

        item_id = self.item_id

        item_type = self.item_type

        updated_at = self.updated_at.isoformat()

        workbasket_id = self.workbasket_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "configurationId": configuration_id,
                "createdAt": created_at,
                "fields": fields,
                "itemId": item_id,
                "itemType": item_type,
                "updatedAt": updated_at,
                "workbasketId": workbasket_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.view_item_fields import ViewItemFields

        d = dict(src_dict)
        configuration_id = d.pop("configurationId")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        fields = ViewItemFields.from_dict(d.pop("fields"))

        item_id = d.pop("itemId")

        item_type = d.pop("itemType")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        workbasket_id = d.pop("workbasketId")

        view_item = cls(
            configuration_id=configuration_id,
            created_at=created_at,
            fields=fields,
            item_id=item_id,
            item_type=item_type,
            updated_at=updated_at,
            workbasket_id=workbasket_id,
        )

        view_item.additional_properties = d
        return view_item

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
