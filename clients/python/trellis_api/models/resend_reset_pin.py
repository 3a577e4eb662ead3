from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ResendResetPin")


@_attrs_define
class ResendResetPin:
    """
    Attributes:
        reset_token (str):
    """

    reset_token: str

    def to_dict(self) -> dict[str, Any]:
        reset_token = self.reset_token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "resetToken": reset_token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        reset_token = d.pop("resetToken")

        resend_reset_pin = cls(
            reset_token=reset_token,
        )

        return resend_reset_pin
