from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="NewComment")


@_attrs_define
class NewComment:
    """A new comment. The handler reads the body as a map so it can name every unknown property; this
    type documents it.

        Attributes:
            body (str): 1 to 4000 characters, not blank; no control characters other than line breaks and tabs.
    """

    body: str

    def to_dict(self) -> dict[str, Any]:
        body = self.body

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "body": body,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        body = d.pop("body")

        new_comment = cls(
            body=body,
        )

        return new_comment
