from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="NewChannel")


@_attrs_define
class NewChannel:
    """A new channel. The handler reads the body as a map so it can name every unknown or
    read-only property; this type documents it.

        Attributes:
            name (str): Required: 1 to 100 characters, not blank, no control characters; trimmed.
            description (None | str | Unset): At most 1000 characters; line breaks allowed, other control characters not.
    """

    name: str
    description: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        name = self.name

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        name = d.pop("name")

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        new_channel = cls(
            name=name,
            description=description,
        )

        return new_channel
