from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="CompleteSignup")


@_attrs_define
class CompleteSignup:
    """
    Attributes:
        password (str): 8 to 1,024 characters with at least one letter and one number.
        signup_token (str):
    """

    password: str
    signup_token: str

    def to_dict(self) -> dict[str, Any]:
        password = self.password

        signup_token = self.signup_token

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "password": password,
                "signupToken": signup_token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        password = d.pop("password")

        signup_token = d.pop("signupToken")

        complete_signup = cls(
            password=password,
            signup_token=signup_token,
        )

        return complete_signup
