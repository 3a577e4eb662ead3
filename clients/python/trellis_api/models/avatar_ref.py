from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AvatarRef")


@_attrs_define
class AvatarRef:
    """Where an avatar is fetched; `null` until the user uploads one.

    Attributes:
        db_hash (str):
        pic_id (str):
        user_id (str):
    """

    db_hash: str
    pic_id: str
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        db_hash = self.db_hash

        pic_id = self.pic_id

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "dbHash": db_hash,
                "picId": pic_id,
                "userId": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        db_hash = d.pop("dbHash")

        pic_id = d.pop("picId")

        user_id = d.pop("userId")

        avatar_ref = cls(
            db_hash=db_hash,
            pic_id=pic_id,
            user_id=user_id,
        )

        avatar_ref.additional_properties = d
        return avatar_ref

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
