from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="ChannelSpaceSet")


@_attrs_define
class ChannelSpaceSet:
    """The whole connected set.

    Attributes:
        space_ids (list[str]): At most 100 distinct ids of spaces the caller owns, in the order the list shows them;
            `[]` disconnects every space.
    """

    space_ids: list[str]

    def to_dict(self) -> dict[str, Any]:
        space_ids = self.space_ids

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "spaceIds": space_ids,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        space_ids = cast(list[str], d.pop("spaceIds"))

        channel_space_set = cls(
            space_ids=space_ids,
        )

        return channel_space_set
