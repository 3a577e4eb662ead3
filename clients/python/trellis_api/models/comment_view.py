from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.user_summary import UserSummary


T = TypeVar("T", bound="CommentView")


@_attrs_define
class CommentView:
    """A comment, wherever it was made (a space, a channel).

    Attributes:
        author (UserSummary): Another user as search shows them.
        body (str):
        comment_id (str):
        created_at (datetime.datetime):
    """

    author: UserSummary
    body: str
    comment_id: str
    created_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        author = self.author.to_dict()

        body = self.body

        comment_id = self.comment_id

        created_at = self.created_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "author": author,
                "body": body,
                "commentId": comment_id,
                "createdAt": created_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.user_summary import UserSummary

        d = dict(src_dict)
        author = UserSummary.from_dict(d.pop("author"))

        body = d.pop("body")

        comment_id = d.pop("commentId")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        comment_view = cls(
            author=author,
            body=body,
            comment_id=comment_id,
            created_at=created_at,
        )

        comment_view.additional_properties = d
        return comment_view

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
