from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LiveCommentCreated")


@_attrs_define
class LiveCommentCreated:
    """`comment.created`, to those who may read the space or channel.

    Attributes:
        comment_id (str):
        scope (str): `space` or `channel`.
        scope_id (str):
    """

    comment_id: str
    scope: str
    scope_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        comment_id = self.comment_id

        scope = self.scope

        scope_id = self.scope_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "commentId": comment_id,
                "scope": scope,
                "scopeId": scope_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        comment_id = d.pop("commentId")

        scope = d.pop("scope")

        scope_id = d.pop("scopeId")

        live_comment_created = cls(
            comment_id=comment_id,
            scope=scope,
            scope_id=scope_id,
        )

        live_comment_created.additional_properties = d
        return live_comment_created

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
