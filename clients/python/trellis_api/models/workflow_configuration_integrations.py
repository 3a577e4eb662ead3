from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_integrations_forms import (
        WorkflowConfigurationIntegrationsForms,
    )


T = TypeVar("T", bound="WorkflowConfigurationIntegrations")


@_attrs_define
class WorkflowConfigurationIntegrations:
    """
    Attributes:
        forms (WorkflowConfigurationIntegrationsForms | Unset):
    """

    forms: WorkflowConfigurationIntegrationsForms | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        forms: dict[str, Any] | Unset = UNSET
        if not isinstance(self.forms, Unset):
            forms = self.forms.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if forms is not UNSET:
            field_dict["forms"] = forms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_integrations_forms import (
            WorkflowConfigurationIntegrationsForms,
        )

        d = dict(src_dict)
        _forms = d.pop("forms", UNSET)
        forms: WorkflowConfigurationIntegrationsForms | Unset
        if isinstance(_forms, Unset):
            forms = UNSET
        else:
            forms = WorkflowConfigurationIntegrationsForms.from_dict(_forms)

        workflow_configuration_integrations = cls(
            forms=forms,
        )

        workflow_configuration_integrations.additional_properties = d
        return workflow_configuration_integrations

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
