from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AssetPart")


@_attrs_define
class AssetPart:
    """The descriptor of an asset's uploaded part, as the owner's approval queue shows it.

    Attributes:
        asset_id (str):
        bytes_ (int):
        content_type (str):
        created_at (datetime.datetime):
        filename (str):
        part (str): Always `base`: the part the download route serves.
    """

    asset_id: str
    bytes_: int
    content_type: str
    created_at: datetime.datetime
    filename: str
    part: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        asset_id = self.asset_id

        bytes_ = self.bytes_

        content_type = self.content_type

        created_at = self.created_at.isoformat()

        filename = self.filename

        part = self.part

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assetId": asset_id,
                "bytes": bytes_,
                "contentType": content_type,
                "createdAt": created_at,
                "filename": filename,
                "part": part,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        asset_id = d.pop("assetId")

        bytes_ = d.pop("bytes")

        content_type = d.pop("contentType")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        filename = d.pop("filename")

        part = d.pop("part")

        asset_part = cls(
            asset_id=asset_id,
            bytes_=bytes_,
            content_type=content_type,
            created_at=created_at,
            filename=filename,
            part=part,
        )

        asset_part.additional_properties = d
        return asset_part

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
