from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FormConfigurationMetadata")


@_attrs_define
class FormConfigurationMetadata:
    """
    Attributes:
        capture_location (bool | Unset):  Default: False.
        capture_summary (bool | Unset):  Default: False.
        capture_tags (bool | Unset):  Default: False.
        capture_timestamp (bool | Unset):  Default: False.
    """

    capture_location: bool | Unset = False
    capture_summary: bool | Unset = False
    capture_tags: bool | Unset = False
    capture_timestamp: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        capture_location = self.capture_location

        capture_summary = self.capture_summary

        capture_tags = self.capture_tags

        capture_timestamp = self.capture_timestamp

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if capture_location is not UNSET:
            field_dict["captureLocation"] = capture_location
        if capture_summary is not UNSET:
            field_dict["captureSummary"] = capture_summary
        if capture_tags is not UNSET:
            field_dict["captureTags"] = capture_tags
        if capture_timestamp is not UNSET:
            field_dict["captureTimestamp"] = capture_timestamp

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        capture_location = d.pop("captureLocation", UNSET)

        capture_summary = d.pop("captureSummary", UNSET)

        capture_tags = d.pop("captureTags", UNSET)

        capture_timestamp = d.pop("captureTimestamp", UNSET)

        form_configuration_metadata = cls(
            capture_location=capture_location,
            capture_summary=capture_summary,
            capture_tags=capture_tags,
            capture_timestamp=capture_timestamp,
        )

        form_configuration_metadata.additional_properties = d
        return form_configuration_metadata

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
