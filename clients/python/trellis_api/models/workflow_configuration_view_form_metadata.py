from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_metadata_rule import (
        WorkflowConfigurationMetadataRule,
    )


T = TypeVar("T", bound="WorkflowConfigurationViewFormMetadata")


@_attrs_define
class WorkflowConfigurationViewFormMetadata:
    """
    Attributes:
        location (WorkflowConfigurationMetadataRule | Unset):
        summary (WorkflowConfigurationMetadataRule | Unset):
        tags (WorkflowConfigurationMetadataRule | Unset):
        timestamp (WorkflowConfigurationMetadataRule | Unset):
    """

    location: WorkflowConfigurationMetadataRule | Unset = UNSET
    summary: WorkflowConfigurationMetadataRule | Unset = UNSET
    tags: WorkflowConfigurationMetadataRule | Unset = UNSET
    timestamp: WorkflowConfigurationMetadataRule | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        location: dict[str, Any] | Unset = UNSET
        if not isinstance(self.location, Unset):
            location = self.location.to_dict()

        summary: dict[str, Any] | Unset = UNSET
        if not isinstance(self.summary, Unset):
            summary = self.summary.to_dict()

        tags: dict[str, Any] | Unset = UNSET
        if not isinstance(self.tags, Unset):
            tags = self.tags.to_dict()

        timestamp: dict[str, Any] | Unset = UNSET
        if not isinstance(self.timestamp, Unset):
            timestamp = self.timestamp.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if location is not UNSET:
            field_dict["location"] = location
        if summary is not UNSET:
            field_dict["summary"] = summary
        if tags is not UNSET:
            field_dict["tags"] = tags
        if timestamp is not UNSET:
            field_dict["timestamp"] = timestamp

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_metadata_rule import (
            WorkflowConfigurationMetadataRule,
        )

        d = dict(src_dict)
        _location = d.pop("location", UNSET)
        location: WorkflowConfigurationMetadataRule | Unset
        if isinstance(_location, Unset):
            location = UNSET
        else:
            location = WorkflowConfigurationMetadataRule.from_dict(_location)

        _summary = d.pop("summary", UNSET)
        summary: WorkflowConfigurationMetadataRule | Unset
        if isinstance(_summary, Unset):
            summary = UNSET
        else:
            summary = WorkflowConfigurationMetadataRule.from_dict(_summary)

        _tags = d.pop("tags", UNSET)
        tags: WorkflowConfigurationMetadataRule | Unset
        if isinstance(_tags, Unset):
            tags = UNSET
        else:
            tags = WorkflowConfigurationMetadataRule.from_dict(_tags)

        _timestamp = d.pop("timestamp", UNSET)
        timestamp: WorkflowConfigurationMetadataRule | Unset
        if isinstance(_timestamp, Unset):
            timestamp = UNSET
        else:
            timestamp = WorkflowConfigurationMetadataRule.from_dict(_timestamp)

        workflow_configuration_view_form_metadata = cls(
            location=location,
            summary=summary,
            tags=tags,
            timestamp=timestamp,
        )

        return workflow_configuration_view_form_metadata
