from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_configuration_field import FormConfigurationField


T = TypeVar("T", bound="FormConfigurationPage")


@_attrs_define
class FormConfigurationPage:
    """
    Attributes:
        fields (list[FormConfigurationField]):
        id (UUID): A UUID v4, unique in the document.
        key (str): A structural key, used in translation paths; no dots.
        order (float):
        description (str | Unset): A `$.` path into the language bundle, e.g. `$.pages.p1.title`.
        title (str | Unset): A `$.` path into the language bundle, e.g. `$.pages.p1.title`.
    """

    fields: list[FormConfigurationField]
    id: UUID
    key: str
    order: float
    description: str | Unset = UNSET
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        fields = []
        for fields_item_data in self.fields:
            fields_item = fields_item_data.to_dict()
            fields.append(fields_item)

        id = str(self.id)

        key = self.key

        order = self.order

        description = self.description

        title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "fields": fields,
                "id": id,
                "key": key,
                "order": order,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_configuration_field import FormConfigurationField

        d = dict(src_dict)
        fields = []
        _fields = d.pop("fields")
        for fields_item_data in _fields:
            fields_item = FormConfigurationField.from_dict(fields_item_data)

            fields.append(fields_item)

        id = UUID(d.pop("id"))

        key = d.pop("key")

        order = d.pop("order")

        description = d.pop("description", UNSET)

        title = d.pop("title", UNSET)

        form_configuration_page = cls(
            fields=fields,
            id=id,
            key=key,
            order=order,
            description=description,
            title=title,
        )

        form_configuration_page.additional_properties = d
        return form_configuration_page

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
