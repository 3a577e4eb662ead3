from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.invite_result_state import InviteResultState

T = TypeVar("T", bound="InviteResult")


@_attrs_define
class InviteResult:
    """What the request did for one handle.

    Attributes:
        handle (str):
        invite_id (None | str): The invite: new, or the one already PENDING for this user. For a user who is already a
            member (state `ACCEPTED`), the invite they accepted, or `null` when they joined without
            one (the owner).
        state (InviteResultState): `PENDING` (invited now or before) or `ACCEPTED` (already a member).
    """

    handle: str
    invite_id: None | str
    state: InviteResultState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        handle = self.handle

        invite_id: None | str
        invite_id = self.invite_id

        state = self.state.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "handle": handle,
                "inviteId": invite_id,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        handle = d.pop("handle")

        def _parse_invite_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        invite_id = _parse_invite_id(d.pop("inviteId"))

        state = InviteResultState(d.pop("state"))

        invite_result = cls(
            handle=handle,
            invite_id=invite_id,
            state=state,
        )

        invite_result.additional_properties = d
        return invite_result

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
