from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

T = TypeVar("T", bound="UseUploads")


@_attrs_define
class UseUploads:
    """Finished resumable uploads used in place of file parts, paired with `fieldIds` by position.

    Attributes:
        field_ids (list[str]):
        upload_ids (list[str]): Ids of finished uploads (`/v0/media/uploads`), each used once.
    """

    field_ids: list[str]
    upload_ids: list[str]

    def to_dict(self) -> dict[str, Any]:
        field_ids = self.field_ids

        upload_ids = self.upload_ids

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "fieldIds": field_ids,
                "uploadIds": upload_ids,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field_ids = cast(list[str], d.pop("fieldIds"))

        upload_ids = cast(list[str], d.pop("uploadIds"))

        use_uploads = cls(
            field_ids=field_ids,
            upload_ids=upload_ids,
        )

        return use_uploads
