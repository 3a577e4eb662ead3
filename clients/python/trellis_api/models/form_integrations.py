from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="FormIntegrations")


@_attrs_define
class FormIntegrations:
    """The integrations a configuration's flags enable: a space of the caller's, a workflow to start.

    Attributes:
        space_id (Any | Unset):
        workflow_configuration_id (Any | Unset):
    """

    space_id: Any | Unset = UNSET
    workflow_configuration_id: Any | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        space_id = self.space_id

        workflow_configuration_id = self.workflow_configuration_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if space_id is not UNSET:
            field_dict["spaceId"] = space_id
        if workflow_configuration_id is not UNSET:
            field_dict["workflowConfigurationId"] = workflow_configuration_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        space_id = d.pop("spaceId", UNSET)

        workflow_configuration_id = d.pop("workflowConfigurationId", UNSET)

        form_integrations = cls(
            space_id=space_id,
            workflow_configuration_id=workflow_configuration_id,
        )

        return form_integrations
