from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_configuration_page_texts_fields import (
        FormConfigurationPageTextsFields,
    )


T = TypeVar("T", bound="FormConfigurationPageTexts")


@_attrs_define
class FormConfigurationPageTexts:
    """
    Attributes:
        description (str | Unset):
        fields (FormConfigurationPageTextsFields | Unset):
        title (str | Unset):
    """

    description: str | Unset = UNSET
    fields: FormConfigurationPageTextsFields | Unset = UNSET
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        fields: dict[str, Any] | Unset = UNSET
        if not isinstance(self.fields, Unset):
            fields = self.fields.to_dict()

        title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if description is not UNSET:
            field_dict["description"] = description
        if fields is not UNSET:
            field_dict["fields"] = fields
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_configuration_page_texts_fields import (
            FormConfigurationPageTextsFields,
        )

        d = dict(src_dict)
        description = d.pop("description", UNSET)

        _fields = d.pop("fields", UNSET)
        fields: FormConfigurationPageTextsFields | Unset
        if isinstance(_fields, Unset):
            fields = UNSET
        else:
            fields = FormConfigurationPageTextsFields.from_dict(_fields)

        title = d.pop("title", UNSET)

        form_configuration_page_texts = cls(
            description=description,
            fields=fields,
            title=title,
        )

        form_configuration_page_texts.additional_properties = d
        return form_configuration_page_texts

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
