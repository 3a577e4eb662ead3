from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_configuration_field_texts_options import (
        FormConfigurationFieldTextsOptions,
    )


T = TypeVar("T", bound="FormConfigurationFieldTexts")


@_attrs_define
class FormConfigurationFieldTexts:
    """
    Attributes:
        description (str | Unset):
        label (str | Unset):
        options (FormConfigurationFieldTextsOptions | Unset):
        placeholder (str | Unset):
        tooltip (str | Unset):
    """

    description: str | Unset = UNSET
    label: str | Unset = UNSET
    options: FormConfigurationFieldTextsOptions | Unset = UNSET
    placeholder: str | Unset = UNSET
    tooltip: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        label = self.label

        options: dict[str, Any] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = self.options.to_dict()

        placeholder = self.placeholder

        tooltip = self.tooltip

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if description is not UNSET:
            field_dict["description"] = description
        if label is not UNSET:
            field_dict["label"] = label
        if options is not UNSET:
            field_dict["options"] = options
        if placeholder is not UNSET:
            field_dict["placeholder"] = placeholder
        if tooltip is not UNSET:
            field_dict["tooltip"] = tooltip

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_configuration_field_texts_options import (
            FormConfigurationFieldTextsOptions,
        )

        d = dict(src_dict)
        description = d.pop("description", UNSET)

        label = d.pop("label", UNSET)

        _options = d.pop("options", UNSET)
        options: FormConfigurationFieldTextsOptions | Unset
        if isinstance(_options, Unset):
            options = UNSET
        else:
            options = FormConfigurationFieldTextsOptions.from_dict(_options)

        placeholder = d.pop("placeholder", UNSET)

        tooltip = d.pop("tooltip", UNSET)

        form_configuration_field_texts = cls(
            description=description,
            label=label,
            options=options,
            placeholder=placeholder,
            tooltip=tooltip,
        )

        form_configuration_field_texts.additional_properties = d
        return form_configuration_field_texts

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
