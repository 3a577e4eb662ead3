from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewSpace")


@_attrs_define
class NewSpace:
    """A new space: `name` and `displayName` are required.

    Attributes:
        display_name (str): 1 to 100 characters.
        name (str): 3 to 64 characters of a-z, 0-9 and `-`; unique.
        summary (None | str | Unset): At most 1000 characters.
    """

    display_name: str
    name: str
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

        field_dict.update(
            {
                "displayName": display_name,
                "name": name,
            }
        )
        if summary is not UNSET:
            field_dict["summary"] = summary

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        display_name = d.pop("displayName")

        name = d.pop("name")

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        new_space = cls(
            display_name=display_name,
            name=name,
            summary=summary,
        )

        return new_space
