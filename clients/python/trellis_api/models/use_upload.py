from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UseUpload")


@_attrs_define
class UseUpload:
    """A finished resumable upload used in place of the file part.

    Attributes:
        upload_id (str):
    """

    upload_id: str

    def to_dict(self) -> dict[str, Any]:
        upload_id = self.upload_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "uploadId": upload_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        upload_id = d.pop("uploadId")

        use_upload = cls(
            upload_id=upload_id,
        )

        return use_upload
