from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="LiveAssetChanged")


@_attrs_define
class LiveAssetChanged:
    """`asset.changed`, to those who may read the asset.

    Attributes:
        asset_id (str):
        space_id (str):
        state (str):
        analysis_state (None | str | Unset): `null` before the asset's first analysis is queued.
    """

    asset_id: str
    space_id: str
    state: str
    analysis_state: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        asset_id = self.asset_id

        space_id = self.space_id

        state = self.state

        analysis_state: None | str | Unset
        if isinstance(self.analysis_state, Unset):
            analysis_state = UNSET
        else:
            analysis_state = self.analysis_state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assetId": asset_id,
                "spaceId": space_id,
                "state": state,
            }
        )
        if analysis_state is not UNSET:
            field_dict["analysisState"] = analysis_state

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        asset_id = d.pop("assetId")

        space_id = d.pop("spaceId")

        state = d.pop("state")

        def _parse_analysis_state(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        analysis_state = _parse_analysis_state(d.pop("analysisState", UNSET))

        live_asset_changed = cls(
            asset_id=asset_id,
            space_id=space_id,
            state=state,
            analysis_state=analysis_state,
        )

        live_asset_changed.additional_properties = d
        return live_asset_changed

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
