from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.profile import Profile


T = TypeVar("T", bound="SessionOpened")


@_attrs_define
class SessionOpened:
    """A new session; `sessionToken` is the bearer value.

    Attributes:
        expires_at (datetime.datetime):
        session_token (str):
        user (Profile): The signed-in user's own profile.
    """

    expires_at: datetime.datetime
    session_token: str
    user: Profile
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expires_at = self.expires_at.isoformat()

        session_token = self.session_token

        user = self.user.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expiresAt": expires_at,
                "sessionToken": session_token,
                "user": user,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.profile import Profile

        d = dict(src_dict)
        expires_at = datetime.datetime.fromisoformat(d.pop("expiresAt"))

        session_token = d.pop("sessionToken")

        user = Profile.from_dict(d.pop("user"))

        session_opened = cls(
            expires_at=expires_at,
            session_token=session_token,
            user=user,
        )

        session_opened.additional_properties = d
        return session_opened

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
