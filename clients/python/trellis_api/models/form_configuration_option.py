from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FormConfigurationOption")


@_attrs_define
class FormConfigurationOption:
    """
    Attributes:
        id (UUID): A UUID v4, unique in the document.
        key (str): A structural key, used in translation paths; no dots.
        order (float):
        value (str):
        label (str | Unset): A `$.` path into the language bundle, e.g. `$.pages.p1.title`.
    """

    id: UUID
    key: str
    order: float
    value: str
    label: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        key = self.key

        order = self.order

        value = self.value

        label = self.label

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "key": key,
                "order": order,
                "value": value,
            }
        )
        if label is not UNSET:
            field_dict["label"] = label

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        key = d.pop("key")

        order = d.pop("order")

        value = d.pop("value")

        label = d.pop("label", UNSET)

        form_configuration_option = cls(
            id=id,
            key=key,
            order=order,
            value=value,
            label=label,
        )

        form_configuration_option.additional_properties = d
        return form_configuration_option

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
