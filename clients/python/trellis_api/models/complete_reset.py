from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CompleteReset")


@_attrs_define
class CompleteReset:
    """
    Attributes:
        password (str): 8 to 1,024 characters with at least one letter and one number.
        reset_token (str):
    """

    password: str
    reset_token: str

    def to_dict(self) -> dict[str, Any]:
        password = self.password

        reset_token = self.reset_token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "password": password,
                "resetToken": reset_token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        password = d.pop("password")

        reset_token = d.pop("resetToken")

        complete_reset = cls(
            password=password,
            reset_token=reset_token,
        )

        return complete_reset
