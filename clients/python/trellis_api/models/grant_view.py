from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="GrantView")


@_attrs_define
class GrantView:
    """
    Attributes:
        handle (str):
        slots (list[int]):
    """

    handle: str
    slots: list[int]

    def to_dict(self) -> dict[str, Any]:
        handle = self.handle

        slots = self.slots

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "handle": handle,
                "slots": slots,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        handle = d.pop("handle")

        slots = cast(list[int], d.pop("slots"))

        grant_view = cls(
            handle=handle,
            slots=slots,
        )

        return grant_view
