from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_configuration_bundle_common_buttons import (
        FormConfigurationBundleCommonButtons,
    )


T = TypeVar("T", bound="FormConfigurationBundleCommon")


@_attrs_define
class FormConfigurationBundleCommon:
    """
    Attributes:
        buttons (FormConfigurationBundleCommonButtons | Unset):
    """

    buttons: FormConfigurationBundleCommonButtons | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        buttons: dict[str, Any] | Unset = UNSET
        if not isinstance(self.buttons, Unset):
            buttons = self.buttons.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if buttons is not UNSET:
            field_dict["buttons"] = buttons

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_configuration_bundle_common_buttons import (
            FormConfigurationBundleCommonButtons,
        )

        d = dict(src_dict)
        _buttons = d.pop("buttons", UNSET)
        buttons: FormConfigurationBundleCommonButtons | Unset
        if isinstance(_buttons, Unset):
            buttons = UNSET
        else:
            buttons = FormConfigurationBundleCommonButtons.from_dict(_buttons)

        form_configuration_bundle_common = cls(
            buttons=buttons,
        )

        form_configuration_bundle_common.additional_properties = d
        return form_configuration_bundle_common

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
