from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FormConfigurationBundleCommonButtons")


@_attrs_define
class FormConfigurationBundleCommonButtons:
    """
    Attributes:
        back (str | Unset):
        next_ (str | Unset):
        submit (str | Unset):
    """

    back: str | Unset = UNSET
    next_: str | Unset = UNSET
    submit: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        back = self.back

        next_ = self.next_

        submit = self.submit

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if back is not UNSET:
            field_dict["back"] = back
        if next_ is not UNSET:
            field_dict["next"] = next_
        if submit is not UNSET:
            field_dict["submit"] = submit

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        back = d.pop("back", UNSET)

        next_ = d.pop("next", UNSET)

        submit = d.pop("submit", UNSET)

        form_configuration_bundle_common_buttons = cls(
            back=back,
            next_=next_,
            submit=submit,
        )

        form_configuration_bundle_common_buttons.additional_properties = d
        return form_configuration_bundle_common_buttons

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
