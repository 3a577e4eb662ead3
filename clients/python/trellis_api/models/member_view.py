from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.member_view_role import MemberViewRole

T = TypeVar("T", bound="MemberView")


@_attrs_define
class MemberView:
    """A member of a channel.

    Attributes:
        display_name (str):
        handle (str):
        joined_at (datetime.datetime):
        role (MemberViewRole): `owner`, `inviter` or `member`.
        user_id (str):
    """

    display_name: str
    handle: str
    joined_at: datetime.datetime
    role: MemberViewRole
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        display_name = self.display_name

        handle = self.handle

        joined_at = self.joined_at.isoformat()

        role = self.role.value

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "displayName": display_name,
                "handle": handle,
                "joinedAt": joined_at,
                "role": role,
                "userId": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        display_name = d.pop("displayName")

        handle = d.pop("handle")

        joined_at = datetime.datetime.fromisoformat(d.pop("joinedAt"))

        role = MemberViewRole(d.pop("role"))

        user_id = d.pop("userId")

        member_view = cls(
            display_name=display_name,
            handle=handle,
            joined_at=joined_at,
            role=role,
            user_id=user_id,
        )

        member_view.additional_properties = d
        return member_view

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
