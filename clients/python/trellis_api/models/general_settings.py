from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="GeneralSettings")


@_attrs_define
class GeneralSettings:
    """The general settings. On create `name` and `displayName` are required; a PATCH sends any of
    them. The handlers read the body as a map so they can name every unknown or read-only
    property; this type documents it.

        Attributes:
            display_name (str | Unset): 1 to 100 characters.
            name (str | Unset): 3 to 64 characters of a-z, 0-9 and `-`; unique.
            summary (None | str | Unset): At most 1000 characters; `null` clears it.
    """

    display_name: str | Unset = UNSET
    name: str | Unset = UNSET
    summary: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        display_name = self.display_name

        name = self.name

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if name is not UNSET:
            field_dict["name"] = name
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        display_name = d.pop("displayName", UNSET)

        name = d.pop("name", UNSET)

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        general_settings = cls(
            display_name=display_name,
            name=name,
            summary=summary,
        )

        return general_settings
