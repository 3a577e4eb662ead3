from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="Login")


@_attrs_define
class Login:
    """
    Attributes:
        login (str): The e-mail address or the handle.
        password (str):
    """

    login: str
    password: str

    def to_dict(self) -> dict[str, Any]:
        login = self.login

        password = self.password

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "login": login,
                "password": password,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        login = d.pop("login")

        password = d.pop("password")

        login = cls(
            login=login,
            password=password,
        )

        return login
