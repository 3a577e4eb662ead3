from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="VerifyResetPin")


@_attrs_define
class VerifyResetPin:
    """
    Attributes:
        pin (str):
        reset_token (str):
    """

    pin: str
    reset_token: str

    def to_dict(self) -> dict[str, Any]:
        pin = self.pin

        reset_token = self.reset_token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "pin": pin,
                "resetToken": reset_token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        pin = d.pop("pin")

        reset_token = d.pop("resetToken")

        verify_reset_pin = cls(
            pin=pin,
            reset_token=reset_token,
        )

        return verify_reset_pin
