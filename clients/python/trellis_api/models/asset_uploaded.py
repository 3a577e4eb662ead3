from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AssetUploaded")


@_attrs_define
class AssetUploaded:
    """`{assetId, contentType, bytes, filename}`: an asset's stored bytes.

    Attributes:
        asset_id (str):
        bytes_ (int):
        content_type (str):
        filename (str):
    """

    asset_id: str
    bytes_: int
    content_type: str
    filename: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        asset_id = self.asset_id

        bytes_ = self.bytes_

        content_type = self.content_type

        filename = self.filename

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assetId": asset_id,
                "bytes": bytes_,
                "contentType": content_type,
                "filename": filename,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        asset_id = d.pop("assetId")

        bytes_ = d.pop("bytes")

        content_type = d.pop("contentType")

        filename = d.pop("filename")

        asset_uploaded = cls(
            asset_id=asset_id,
            bytes_=bytes_,
            content_type=content_type,
            filename=filename,
        )

        asset_uploaded.additional_properties = d
        return asset_uploaded

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
