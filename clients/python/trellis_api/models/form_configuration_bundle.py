from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_configuration_bundle_common import FormConfigurationBundleCommon
    from ..models.form_configuration_bundle_details import (
        FormConfigurationBundleDetails,
    )
    from ..models.form_configuration_bundle_pages import FormConfigurationBundlePages


T = TypeVar("T", bound="FormConfigurationBundle")


@_attrs_define
class FormConfigurationBundle:
    """One language's texts; partial bundles fall back to the default language.

    Attributes:
        common (FormConfigurationBundleCommon | Unset):
        details (FormConfigurationBundleDetails | Unset):
        pages (FormConfigurationBundlePages | Unset):
    """

    common: FormConfigurationBundleCommon | Unset = UNSET
    details: FormConfigurationBundleDetails | Unset = UNSET
    pages: FormConfigurationBundlePages | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        common: dict[str, Any] | Unset = UNSET
        if not isinstance(self.common, Unset):
            common = self.common.to_dict()

        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        pages: dict[str, Any] | Unset = UNSET
        if not isinstance(self.pages, Unset):
            pages = self.pages.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if common is not UNSET:
            field_dict["common"] = common
        if details is not UNSET:
            field_dict["details"] = details
        if pages is not UNSET:
            field_dict["pages"] = pages

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_configuration_bundle_common import (
            FormConfigurationBundleCommon,
        )
        from ..models.form_configuration_bundle_details import (
            FormConfigurationBundleDetails,
        )
        from ..models.form_configuration_bundle_pages import (
            FormConfigurationBundlePages,
        )

        d = dict(src_dict)
        _common = d.pop("common", UNSET)
        common: FormConfigurationBundleCommon | Unset
        if isinstance(_common, Unset):
            common = UNSET
        else:
            common = FormConfigurationBundleCommon.from_dict(_common)

        _details = d.pop("details", UNSET)
        details: FormConfigurationBundleDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = FormConfigurationBundleDetails.from_dict(_details)

        _pages = d.pop("pages", UNSET)
        pages: FormConfigurationBundlePages | Unset
        if isinstance(_pages, Unset):
            pages = UNSET
        else:
            pages = FormConfigurationBundlePages.from_dict(_pages)

        form_configuration_bundle = cls(
            common=common,
            details=details,
            pages=pages,
        )

        form_configuration_bundle.additional_properties = d
        return form_configuration_bundle

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
