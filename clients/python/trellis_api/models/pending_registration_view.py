from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="PendingRegistrationView")


@_attrs_define
class PendingRegistrationView:
    """A registration awaiting the owner.

    Attributes:
        created_at (datetime.datetime):
        handle (str):
        note (str):
        registration_id (str):
        suggestion (None | str): What the owner's rules suggest (`REJECT`) when they did not decide; `null` otherwise.
        user_id (str):
    """

    created_at: datetime.datetime
    handle: str
    note: str
    registration_id: str
    suggestion: None | str
    user_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        handle = self.handle

        note = self.note

        registration_id = self.registration_id

        suggestion: None | str
        suggestion = self.suggestion

        user_id = self.user_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "handle": handle,
                "note": note,
                "registrationId": registration_id,
                "suggestion": suggestion,
                "userId": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        handle = d.pop("handle")

        note = d.pop("note")

        registration_id = d.pop("registrationId")

        def _parse_suggestion(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        suggestion = _parse_suggestion(d.pop("suggestion"))

        user_id = d.pop("userId")

        pending_registration_view = cls(
            created_at=created_at,
            handle=handle,
            note=note,
            registration_id=registration_id,
            suggestion=suggestion,
            user_id=user_id,
        )

        pending_registration_view.additional_properties = d
        return pending_registration_view

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
