from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="InviteRequest")


@_attrs_define
class InviteRequest:
    """Whom to invite.

    Attributes:
        users (list[str]): 1 to 50 distinct handles (without `@`), each naming an account other than the caller's.
    """

    users: list[str]

    def to_dict(self) -> dict[str, Any]:
        users = self.users

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "users": users,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        users = cast(list[str], d.pop("users"))

        invite_request = cls(
            users=users,
        )

        return invite_request
