from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewAsset")


@_attrs_define
class NewAsset:
    """An announcement; read as a map so every unknown property can be named. Documents the body.

    Attributes:
        content_type (str): A MIME type such as `image/png`; the uploaded bytes must agree with it.
        filename (str): A file name without folders, at most 255 characters, with no control, bidirectional or
            zero-width character (which could disguise its extension); downloads carry it.
        title (str): 1 to 200 characters.
    """

    content_type: str
    filename: str
    title: str

    def to_dict(self) -> dict[str, Any]:
        content_type = self.content_type

        filename = self.filename

        title = self.title

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "contentType": content_type,
                "filename": filename,
                "title": title,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content_type = d.pop("contentType")

        filename = d.pop("filename")

        title = d.pop("title")

        new_asset = cls(
            content_type=content_type,
            filename=filename,
            title=title,
        )

        return new_asset
