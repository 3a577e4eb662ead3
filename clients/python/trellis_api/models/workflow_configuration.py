from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_controls import WorkflowConfigurationControls
    from ..models.workflow_configuration_integrations import (
        WorkflowConfigurationIntegrations,
    )
    from ..models.workflow_configuration_network import WorkflowConfigurationNetwork
    from ..models.workflow_configuration_translations import (
        WorkflowConfigurationTranslations,
    )
    from ..models.workflow_configuration_view import WorkflowConfigurationView


T = TypeVar("T", bound="WorkflowConfiguration")


@_attrs_define
class WorkflowConfiguration:
    """Contract 1.0.0. Labels and descriptions hold `$.` paths into the active language bundle of `translations` (e.g.
    `$.workbaskets.intake.label`); every path must resolve to a string under `defaultLanguage`. Ids are UUID v4, unique
    across workbaskets, transitions and views.

        Attributes:
            network (WorkflowConfigurationNetwork):
            translations (WorkflowConfigurationTranslations):
            version (str): Semver with major 1; 1.0.0 is current.
            controls (WorkflowConfigurationControls | Unset):
            id (UUID | Unset): A UUID v4.
            integrations (WorkflowConfigurationIntegrations | Unset):
            views (list[WorkflowConfigurationView] | Unset):
    """

    network: WorkflowConfigurationNetwork
    translations: WorkflowConfigurationTranslations
    version: str
    controls: WorkflowConfigurationControls | Unset = UNSET
    id: UUID | Unset = UNSET
    integrations: WorkflowConfigurationIntegrations | Unset = UNSET
    views: list[WorkflowConfigurationView] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        network = self.network.to_dict()

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

        views: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.views, Unset):
            views = []
            for views_item_data in self.views:
                views_item = views_item_data.to_dict()
                views.append(views_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "network": network,
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
        if views is not UNSET:
            field_dict["views"] = views

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_controls import (
            WorkflowConfigurationControls,
        )
        from ..models.workflow_configuration_integrations import (
            WorkflowConfigurationIntegrations,
        )
        from ..models.workflow_configuration_network import WorkflowConfigurationNetwork
        from ..models.workflow_configuration_translations import (
            WorkflowConfigurationTranslations,
        )
        from ..models.workflow_configuration_view import WorkflowConfigurationView

        d = dict(src_dict)
        network = WorkflowConfigurationNetwork.from_dict(d.pop("network"))

        translations = WorkflowConfigurationTranslations.from_dict(
            d.pop("translations")
        )

        version = d.pop("version")

        _controls = d.pop("controls", UNSET)
        controls: WorkflowConfigurationControls | Unset
        if isinstance(_controls, Unset):
            controls = UNSET
        else:
            controls = WorkflowConfigurationControls.from_dict(_controls)

        _id = d.pop("id", UNSET)
        id: UUID | Unset
        if isinstance(_id, Unset):
            id = UNSET
        else:
            id = UUID(_id)

        _integrations = d.pop("integrations", UNSET)
        integrations: WorkflowConfigurationIntegrations | Unset
        if isinstance(_integrations, Unset):
            integrations = UNSET
        else:
            integrations = WorkflowConfigurationIntegrations.from_dict(_integrations)

        _views = d.pop("views", UNSET)
        views: list[WorkflowConfigurationView] | Unset = UNSET
        if _views is not UNSET:
            views = []
            for views_item_data in _views:
                views_item = WorkflowConfigurationView.from_dict(views_item_data)

                views.append(views_item)

        workflow_configuration = cls(
            network=network,
            translations=translations,
            version=version,
            controls=controls,
            id=id,
            integrations=integrations,
            views=views,
        )

        workflow_configuration.additional_properties = d
        return workflow_configuration

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
