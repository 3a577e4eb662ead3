from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UploadCreated")


@_attrs_define
class UploadCreated:
    """An upload as the creation answers it.

    Attributes:
        expires_at (str): RFC 3339; `Upload-Expires` says the same as an HTTP date.
        length (int):
        offset (int): Bytes received so far (those a creation-with-upload carried).
        upload_id (str):
    """

    expires_at: str
    length: int
    offset: int
    upload_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expires_at = self.expires_at

        length = self.length

        offset = self.offset

        upload_id = self.upload_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expiresAt": expires_at,
                "length": length,
                "offset": offset,
                "uploadId": upload_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        expires_at = d.pop("expiresAt")

        length = d.pop("length")

        offset = d.pop("offset")

        upload_id = d.pop("uploadId")

        upload_created = cls(
            expires_at=expires_at,
            length=length,
            offset=offset,
            upload_id=upload_id,
        )

        upload_created.additional_properties = d
        return upload_created

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
