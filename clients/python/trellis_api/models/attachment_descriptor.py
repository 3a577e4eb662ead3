from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AttachmentDescriptor")


@_attrs_define
class AttachmentDescriptor:
    """The stored description of one uploaded file. Storage paths never appear.

    Attributes:
        bytes_ (int):
        content_type (str):
        field_id (str):
        filename (str):
        part_key (str): Opaque; names the part in the download and delete routes.
    """

    bytes_: int
    content_type: str
    field_id: str
    filename: str
    part_key: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        bytes_ = self.bytes_

        content_type = self.content_type

        field_id = self.field_id

        filename = self.filename

        part_key = self.part_key

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "bytes": bytes_,
                "contentType": content_type,
                "fieldId": field_id,
                "filename": filename,
                "partKey": part_key,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        bytes_ = d.pop("bytes")

        content_type = d.pop("contentType")

        field_id = d.pop("fieldId")

        filename = d.pop("filename")

        part_key = d.pop("partKey")

        attachment_descriptor = cls(
            bytes_=bytes_,
            content_type=content_type,
            field_id=field_id,
            filename=filename,
            part_key=part_key,
        )

        attachment_descriptor.additional_properties = d
        return attachment_descriptor

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
