from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.avatar_ref import AvatarRef


T = TypeVar("T", bound="UserSummary")


@_attrs_define
class UserSummary:
    """Another user as search shows them.

    Attributes:
        avatar (AvatarRef | None):
        display_name (str):
        handle (str):
        user_id (str):
    """

    avatar: AvatarRef | None
    display_name: str
    handle: str
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.avatar_ref import AvatarRef

        avatar: dict[str, Any] | None
        if isinstance(self.avatar, AvatarRef):
            avatar = self.avatar.to_dict()
        else:
            avatar = self.avatar

        display_name = self.display_name

        handle = self.handle

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "avatar": avatar,
                "displayName": display_name,
                "handle": handle,
                "userId": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.avatar_ref import AvatarRef

        d = dict(src_dict)

        def _parse_avatar(data: object) -> AvatarRef | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                avatar_type_1 = AvatarRef.from_dict(data)

                return avatar_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AvatarRef | None, data)

        avatar = _parse_avatar(d.pop("avatar"))

        display_name = d.pop("displayName")

        handle = d.pop("handle")

        user_id = d.pop("userId")

        user_summary = cls(
            avatar=avatar,
            display_name=display_name,
            handle=handle,
            user_id=user_id,
        )

        user_summary.additional_properties = d
        return user_summary

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
