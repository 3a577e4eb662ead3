from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.listing_view_membership import ListingViewMembership

T = TypeVar("T", bound="TrendingView")


@_attrs_define
class TrendingView:
    """A listing in the trending list, with its place (1 is the top).

    Attributes:
        assets (int): Published (APPROVED or ENABLED) assets.
        categories (list[str]):
        listed_at (datetime.datetime): When the listing was first approved.
        members (int): Members, the owner included.
        membership (ListingViewMembership): `OPEN` (registrations approved at once), `APPROVAL` (the owner decides) or
            `CLOSED`.
        space_id (str):
        summary (str):
        title (str):
        rank (int):
    """

    assets: int
    categories: list[str]
    listed_at: datetime.datetime
    members: int
    membership: ListingViewMembership
    space_id: str
    summary: str
    title: str
    rank: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assets = self.assets

        categories = self.categories

        listed_at = self.listed_at.isoformat()

        members = self.members

        membership = self.membership.value

        space_id = self.space_id

        summary = self.summary

        title = self.title

        rank = self.rank

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assets": assets,
                "categories": categories,
                "listedAt": listed_at,
                "members": members,
                "membership": membership,
                "spaceId": space_id,
                "summary": summary,
                "title": title,
                "rank": rank,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        assets = d.pop("assets")

        categories = cast(list[str], d.pop("categories"))

        listed_at = datetime.datetime.fromisoformat(d.pop("listedAt"))

        members = d.pop("members")

        membership = ListingViewMembership(d.pop("membership"))

        space_id = d.pop("spaceId")

        summary = d.pop("summary")

        title = d.pop("title")

        rank = d.pop("rank")

        trending_view = cls(
            assets=assets,
            categories=categories,
            listed_at=listed_at,
            members=members,
            membership=membership,
            space_id=space_id,
            summary=summary,
            title=title,
            rank=rank,
        )

        trending_view.additional_properties = d
        return trending_view

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
