from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="VerifySignupPin")


@_attrs_define
class VerifySignupPin:
    """
    Attributes:
        pin (str):
        signup_token (str):
    """

    pin: str
    signup_token: str

    def to_dict(self) -> dict[str, Any]:
        pin = self.pin

        signup_token = self.signup_token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "pin": pin,
                "signupToken": signup_token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        pin = d.pop("pin")

        signup_token = d.pop("signupToken")

        verify_signup_pin = cls(
            pin=pin,
            signup_token=signup_token,
        )

        return verify_signup_pin
