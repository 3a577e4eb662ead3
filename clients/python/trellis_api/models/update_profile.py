from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="UpdateProfile")


@_attrs_define
class UpdateProfile:
    """Fields `PATCH /v0/users/me` changes; the handle and e-mail are read-only. The handler reads
    the body as a map so it can name every unknown or read-only field; this type documents it.

        Attributes:
            display_name (str | Unset):
            full_name (str | Unset):
    """

    display_name: str | Unset = UNSET
    full_name: str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        display_name = self.display_name

        full_name = self.full_name

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if display_name is not UNSET:
            field_dict["displayName"] = display_name
        if full_name is not UNSET:
            field_dict["fullName"] = full_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        display_name = d.pop("displayName", UNSET)

        full_name = d.pop("fullName", UNSET)

        update_profile = cls(
            display_name=display_name,
            full_name=full_name,
        )

        return update_profile
