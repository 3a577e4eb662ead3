from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_configuration_controls import FormConfigurationControls
    from ..models.form_configuration_integrations import FormConfigurationIntegrations
    from ..models.form_configuration_metadata import FormConfigurationMetadata
    from ..models.form_configuration_page import FormConfigurationPage
    from ..models.form_configuration_translations import FormConfigurationTranslations


T = TypeVar("T", bound="FormConfiguration")


@_attrs_define
class FormConfiguration:
    """Contract 1.0.0. Structural text properties hold `$.` paths into the active language bundle of `translations`; every
    path must resolve to a string under `defaultLanguage`.

        Attributes:
            pages (list[FormConfigurationPage]):
            translations (FormConfigurationTranslations):
            version (str): Semver with major 1; 1.0.0 is current.
            controls (FormConfigurationControls | Unset):
            id (UUID | Unset): A UUID v4, unique in the document.
            integrations (FormConfigurationIntegrations | Unset):
            metadata (FormConfigurationMetadata | Unset):
    """

    pages: list[FormConfigurationPage]
    translations: FormConfigurationTranslations
    version: str
    controls: FormConfigurationControls | Unset = UNSET
    id: UUID | Unset = UNSET
    integrations: FormConfigurationIntegrations | Unset = UNSET
    metadata: FormConfigurationMetadata | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        pages = []
        for pages_item_data in self.pages:
            pages_item = pages_item_data.to_dict()
            pages.append(pages_item)

        translations = self.translations.to_dict()

        version = self.version

        controls: dict[str, Any] | Unset = UNSET
        if not isinstance(self.controls, Unset):
            controls = self.controls.to_dict()

        id: str | Unset = UNSET
        if not isinstance(self.id, Unset):
            id = str(self.id)

        integrations: dict[str, Any] | Unset = UNSET
        if not isinstance(self.integrations, Unset):
            integrations = self.integrations.to_dict()

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "pages": pages,
                "translations": translations,
                "version": version,
            }
        )
        if controls is not UNSET:
            field_dict["controls"] = controls
        if id is not UNSET:
            field_dict["id"] = id
        if integrations is not UNSET:
            field_dict["integrations"] = integrations
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_configuration_controls import FormConfigurationControls
        from ..models.form_configuration_integrations import (
            FormConfigurationIntegrations,
        )
        from ..models.form_configuration_metadata import FormConfigurationMetadata
        from ..models.form_configuration_page import FormConfigurationPage
        from ..models.form_configuration_translations import (
            FormConfigurationTranslations,
        )

        d = dict(src_dict)
        pages = []
        _pages = d.pop("pages")
        for pages_item_data in _pages:
            pages_item = FormConfigurationPage.from_dict(pages_item_data)

            pages.append(pages_item)

        translations = FormConfigurationTranslations.from_dict(d.pop("translations"))

        version = d.pop("version")

        _controls = d.pop("controls", UNSET)
        controls: FormConfigurationControls | Unset
        if isinstance(_controls, Unset):
            controls = UNSET
        else:
            controls = FormConfigurationControls.from_dict(_controls)

        _id = d.pop("id", UNSET)
        id: UUID | Unset
        if isinstance(_id, Unset):
            id = UNSET
        else:
            id = UUID(_id)

        _integrations = d.pop("integrations", UNSET)
        integrations: FormConfigurationIntegrations | Unset
        if isinstance(_integrations, Unset):
            integrations = UNSET
        else:
            integrations = FormConfigurationIntegrations.from_dict(_integrations)

        _metadata = d.pop("metadata", UNSET)
        metadata: FormConfigurationMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = FormConfigurationMetadata.from_dict(_metadata)

        form_configuration = cls(
            pages=pages,
            translations=translations,
            version=version,
            controls=controls,
            id=id,
            integrations=integrations,
            metadata=metadata,
        )

        form_configuration.additional_properties = d
        return form_configuration

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
