from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.role_change_role import RoleChangeRole

T = TypeVar("T", bound="RoleChange")


@_attrs_define
class RoleChange:
    """A member's new role.

    Attributes:
        role (RoleChangeRole): `inviter` (may invite) or `member`; ownership does not move.
    """

    role: RoleChangeRole

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        role = RoleChangeRole(d.pop("role"))

        role_change = cls(
            role=role,
        )

        return role_change
