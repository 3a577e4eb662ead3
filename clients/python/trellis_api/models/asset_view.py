from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.asset_view_state import AssetViewState

if TYPE_CHECKING:
    from ..models.asset_analysis import AssetAnalysis
    from ..models.proposer import Proposer


T = TypeVar("T", bound="AssetView")


@_attrs_define
class AssetView:
    """A published asset.

    Attributes:
        analysis (AssetAnalysis | None):
        asset_id (str):
        bytes_ (int | None): Null until the bytes are uploaded.
        content_type (str): The announced type; the uploaded bytes were checked against it.
        created_at (datetime.datetime):
        filename (str):
        proposed_by (Proposer): Who proposed an asset.
        space_id (str):
        state (AssetViewState): `AWAITING_UPLOAD`, `AWAITING_APPROVAL`, `APPROVED`, `REJECTED`, `ENABLED` or `DISABLED`.
        title (str):
        updated_at (datetime.datetime):
    """

    analysis: AssetAnalysis | None
    asset_id: str
    bytes_: int | None
    content_type: str
    created_at: datetime.datetime
    filename: str
    proposed_by: Proposer
    space_id: str
    state: AssetViewState
    title: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.asset_analysis import AssetAnalysis

        analysis: dict[str, Any] | None
        if isinstance(self.analysis, AssetAnalysis):
            analysis = self.analysis.to_dict()
        else:
            analysis = self.analysis

        asset_id = self.asset_id

        bytes_: int | None
        bytes_ = self.bytes_

        content_type = self.content_type

        created_at = self.created_at.isoformat()

        filename = self.filename

        proposed_by = self.proposed_by.to_dict()

        space_id = self.space_id

        state = self.state.value

        title = self.title

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "analysis": analysis,
                "assetId": asset_id,
                "bytes": bytes_,
                "contentType": content_type,
                "createdAt": created_at,
                "filename": filename,
                "proposedBy": proposed_by,
                "spaceId": space_id,
                "state": state,
                "title": title,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.asset_analysis import AssetAnalysis
        from ..models.proposer import Proposer

        d = dict(src_dict)

        def _parse_analysis(data: object) -> AssetAnalysis | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                analysis_type_1 = AssetAnalysis.from_dict(data)

                return analysis_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AssetAnalysis | None, data)

        analysis = _parse_analysis(d.pop("analysis"))

        asset_id = d.pop("assetId")

        def _parse_bytes_(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        bytes_ = _parse_bytes_(d.pop("bytes"))

        content_type = d.pop("contentType")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        filename = d.pop("filename")

        proposed_by = Proposer.from_dict(d.pop("proposedBy"))

        space_id = d.pop("spaceId")

        state = AssetViewState(d.pop("state"))

        title = d.pop("title")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        asset_view = cls(
            analysis=analysis,
            asset_id=asset_id,
            bytes_=bytes_,
            content_type=content_type,
            created_at=created_at,
            filename=filename,
            proposed_by=proposed_by,
            space_id=space_id,
            state=state,
            title=title,
            updated_at=updated_at,
        )

        asset_view.additional_properties = d
        return asset_view

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
