from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AvatarUploaded")


@_attrs_define
class AvatarUploaded:
    """
    Attributes:
        bytes_ (int):
        content_type (str):
        pic_id (str):
    """

    bytes_: int
    content_type: str
    pic_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_ = self.bytes_

        content_type = self.content_type

        pic_id = self.pic_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes": bytes_,
                "contentType": content_type,
                "picId": pic_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bytes_ = d.pop("bytes")

        content_type = d.pop("contentType")

        pic_id = d.pop("picId")

        avatar_uploaded = cls(
            bytes_=bytes_,
            content_type=content_type,
            pic_id=pic_id,
        )

        avatar_uploaded.additional_properties = d
        return avatar_uploaded

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
