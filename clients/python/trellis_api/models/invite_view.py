from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.invite_view_state import InviteViewState

if TYPE_CHECKING:
    from ..models.user_ref import UserRef


T = TypeVar("T", bound="InviteView")


@_attrs_define
class InviteView:
    """An invite as its invitee sees it.

    Attributes:
        channel_id (str):
        channel_name (str):
        created_at (datetime.datetime):
        invite_id (str):
        invited_by (UserRef): A user as an invite names them.
        state (InviteViewState): `PENDING`, `ACCEPTED`, `DECLINED` or `CANCELLED`.
    """

    channel_id: str
    channel_name: str
    created_at: datetime.datetime
    invite_id: str
    invited_by: UserRef
    state: InviteViewState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        channel_id = self.channel_id

        channel_name = self.channel_name

        created_at = self.created_at.isoformat()

        invite_id = self.invite_id

        invited_by = self.invited_by.to_dict()

        state = self.state.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "channelId": channel_id,
                "channelName": channel_name,
                "createdAt": created_at,
                "inviteId": invite_id,
                "invitedBy": invited_by,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.user_ref import UserRef

        d = dict(src_dict)
        channel_id = d.pop("channelId")

        channel_name = d.pop("channelName")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        invite_id = d.pop("inviteId")

        invited_by = UserRef.from_dict(d.pop("invitedBy"))

        state = InviteViewState(d.pop("state"))

        invite_view = cls(
            channel_id=channel_id,
            channel_name=channel_name,
            created_at=created_at,
            invite_id=invite_id,
            invited_by=invited_by,
            state=state,
        )

        invite_view.additional_properties = d
        return invite_view

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
