from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="StartSignup")


@_attrs_define
class StartSignup:
    """
    Attributes:
        display_name (str):
        email (str):
        full_name (str):
        handle (str): 3 to 30 characters of a-z, 0-9 and `_`; not `system`.
    """

    display_name: str
    email: str
    full_name: str
    handle: str

    def to_dict(self) -> dict[str, Any]:
        display_name = self.display_name

        email = self.email

        full_name = self.full_name

        handle = self.handle

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "displayName": display_name,
                "email": email,
                "fullName": full_name,
                "handle": handle,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        display_name = d.pop("displayName")

        email = d.pop("email")

        full_name = d.pop("fullName")

        handle = d.pop("handle")

        start_signup = cls(
            display_name=display_name,
            email=email,
            full_name=full_name,
            handle=handle,
        )

        return start_signup
