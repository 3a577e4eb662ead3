from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.invite_response_response import InviteResponseResponse

T = TypeVar("T", bound="InviteResponse")


@_attrs_define
class InviteResponse:
    """The invitee's answer.

    Attributes:
        invite_id (str):
        response (InviteResponseResponse): `ACCEPT` or `DECLINE`.
    """

    invite_id: str
    response: InviteResponseResponse

    def to_dict(self) -> dict[str, Any]:
        invite_id = self.invite_id

        response = self.response.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "inviteId": invite_id,
                "response": response,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        invite_id = d.pop("inviteId")

        response = InviteResponseResponse(d.pop("response"))

        invite_response = cls(
            invite_id=invite_id,
            response=response,
        )

        return invite_response
