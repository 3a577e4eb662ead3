from __future__ import annotations

from collections.abc import Mapping
from io import BytesIO
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from .. import types
from ..types import File

T = TypeVar("T", bound="AttachmentUpload")


@_attrs_define
class AttachmentUpload:
    """The multipart body of an upload, for the OpenAPI document.

    Attributes:
        field_ids (list[str]): Field ids, paired with `files` by position.
        files (list[File]):
    """

    field_ids: list[str]
    files: list[File]

    def to_dict(self) -> dict[str, Any]:
        field_ids = self.field_ids

        files = []
        for files_item_data in self.files:
            files_item = files_item_data.to_tuple()

            files.append(files_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "fieldIds": field_ids,
                "files": files,
            }
        )

        return field_dict

    def to_multipart(self) -> types.RequestFiles:
        files: types.RequestFiles = []

        for field_ids_item_element in self.field_ids:
            files.append(
                ("fieldIds", (None, str(field_ids_item_element).encode(), "text/plain"))
            )

        for files_item_element in self.files:
            files.append(("files", files_item_element.to_tuple()))

        return files

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        field_ids = cast(list[str], d.pop("fieldIds"))

        files = []
        _files = d.pop("files")
        for files_item_data in _files:
            files_item = File(payload=BytesIO(files_item_data))

            files.append(files_item)

        attachment_upload = cls(
            field_ids=field_ids,
            files=files,
        )

        return attachment_upload
