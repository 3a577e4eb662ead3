from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_bundle_details import (
        WorkflowConfigurationBundleDetails,
    )
    from ..models.workflow_configuration_bundle_transitions import (
        WorkflowConfigurationBundleTransitions,
    )
    from ..models.workflow_configuration_bundle_views import (
        WorkflowConfigurationBundleViews,
    )
    from ..models.workflow_configuration_bundle_workbaskets import (
        WorkflowConfigurationBundleWorkbaskets,
    )


T = TypeVar("T", bound="WorkflowConfigurationBundle")


@_attrs_define
class WorkflowConfigurationBundle:
    """One language's texts; partial bundles fall back to the default language.

    Attributes:
        details (WorkflowConfigurationBundleDetails | Unset):
        transitions (WorkflowConfigurationBundleTransitions | Unset):
        views (WorkflowConfigurationBundleViews | Unset):
        workbaskets (WorkflowConfigurationBundleWorkbaskets | Unset):
    """

    details: WorkflowConfigurationBundleDetails | Unset = UNSET
    transitions: WorkflowConfigurationBundleTransitions | Unset = UNSET
    views: WorkflowConfigurationBundleViews | Unset = UNSET
    workbaskets: WorkflowConfigurationBundleWorkbaskets | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.details, Unset):
            details = self.details.to_dict()

        transitions: dict[str, Any] | Unset = UNSET
        if not isinstance(self.transitions, Unset):
            transitions = self.transitions.to_dict()

        views: dict[str, Any] | Unset = UNSET
        if not isinstance(self.views, Unset):
            views = self.views.to_dict()

        workbaskets: dict[str, Any] | Unset = UNSET
        if not isinstance(self.workbaskets, Unset):
            workbaskets = self.workbaskets.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if details is not UNSET:
            field_dict["details"] = details
        if transitions is not UNSET:
            field_dict["transitions"] = transitions
        if views is not UNSET:
            field_dict["views"] = views
        if workbaskets is not UNSET:
            field_dict["workbaskets"] = workbaskets

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_bundle_details import (
            WorkflowConfigurationBundleDetails,
        )
        from ..models.workflow_configuration_bundle_transitions import (
            WorkflowConfigurationBundleTransitions,
        )
        from ..models.workflow_configuration_bundle_views import (
            WorkflowConfigurationBundleViews,
        )
        from ..models.workflow_configuration_bundle_workbaskets import (
            WorkflowConfigurationBundleWorkbaskets,
        )

        d = dict(src_dict)
        _details = d.pop("details", UNSET)
        details: WorkflowConfigurationBundleDetails | Unset
        if isinstance(_details, Unset):
            details = UNSET
        else:
            details = WorkflowConfigurationBundleDetails.from_dict(_details)

        _transitions = d.pop("transitions", UNSET)
        transitions: WorkflowConfigurationBundleTransitions | Unset
        if isinstance(_transitions, Unset):
            transitions = UNSET
        else:
            transitions = WorkflowConfigurationBundleTransitions.from_dict(_transitions)

        _views = d.pop("views", UNSET)
        views: WorkflowConfigurationBundleViews | Unset
        if isinstance(_views, Unset):
            views = UNSET
        else:
            views = WorkflowConfigurationBundleViews.from_dict(_views)

        _workbaskets = d.pop("workbaskets", UNSET)
        workbaskets: WorkflowConfigurationBundleWorkbaskets | Unset
        if isinstance(_workbaskets, Unset):
            workbaskets = UNSET
        else:
            workbaskets = WorkflowConfigurationBundleWorkbaskets.from_dict(_workbaskets)

        workflow_configuration_bundle = cls(
            details=details,
            transitions=transitions,
            views=views,
            workbaskets=workbaskets,
        )

        workflow_configuration_bundle.additional_properties = d
        return workflow_configuration_bundle

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
