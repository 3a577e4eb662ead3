from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.asset_state_change_state import AssetStateChangeState

T = TypeVar("T", bound="AssetStateChange")


@_attrs_define
class AssetStateChange:
    """The owner's decision.

    Attributes:
        asset_id (UUID):
        state (AssetStateChangeState): The state to move to: from AWAITING_UPLOAD to REJECTED, from AWAITING_APPROVAL to
            APPROVED
            or REJECTED, from APPROVED to ENABLED or DISABLED, between ENABLED and DISABLED.
    """

    asset_id: UUID
    state: AssetStateChangeState

    def to_dict(self) -> dict[str, Any]:
        asset_id = str(self.asset_id)

        state = self.state.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "assetId": asset_id,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        asset_id = UUID(d.pop("assetId"))

        state = AssetStateChangeState(d.pop("state"))

        asset_state_change = cls(
            asset_id=asset_id,
            state=state,
        )

        return asset_state_change
