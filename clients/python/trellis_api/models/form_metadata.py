from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="FormMetadata")


@_attrs_define
class FormMetadata:
    """The metadata a configuration's flags enable (`captureTimestamp`, `captureTags`, `captureSummary`,
    `captureLocation`).

        Attributes:
            location (Any | Unset):
            summary (Any | Unset):
            tags (Any | Unset):
            timestamp (Any | Unset):
    """

    location: Any | Unset = UNSET
    summary: Any | Unset = UNSET
    tags: Any | Unset = UNSET
    timestamp: Any | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        location = self.location

        summary = self.summary

        tags = self.tags

        timestamp = self.timestamp

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
        d = dict(src_dict)
        location = d.pop("location", UNSET)

        summary = d.pop("summary", UNSET)

        tags = d.pop("tags", UNSET)

        timestamp = d.pop("timestamp", UNSET)

        form_metadata = cls(
            location=location,
            summary=summary,
            tags=tags,
            timestamp=timestamp,
        )

        return form_metadata
