from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.reviewed_listing_view_membership import ReviewedListingViewMembership
from ..models.reviewed_listing_view_state import ReviewedListingViewState

T = TypeVar("T", bound="ReviewedListingView")


@_attrs_define
class ReviewedListingView:
    """A listing preparation as the operator reviews it.

    Attributes:
        categories (list[str]):
        listed (bool): Whether the marketplace shows the space (with the text approved last).
        membership (ReviewedListingViewMembership): `OPEN`, `APPROVAL` or `CLOSED`.
        owner_handle (str):
        reason (None | str): The reason of the last decision.
        space_id (str):
        space_name (str): The space's unique name.
        state (ReviewedListingViewState): `DRAFT`, `SUBMITTED`, `APPROVED` or `REJECTED`.
        submitted_at (datetime.datetime | None):
        summary (str):
        title (str):
        updated_at (datetime.datetime):
    """

    categories: list[str]
    listed: bool
    membership: ReviewedListingViewMembership
    owner_handle: str
    reason: None | str
    space_id: str
    space_name: str
    state: ReviewedListingViewState
    submitted_at: datetime.datetime | None
    summary: str
    title: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        categories = self.categories

        listed = self.listed

        membership = self.membership.value

        owner_handle = self.owner_handle

        reason: None | str
        reason = self.reason

        space_id = self.space_id

        space_name = self.space_name

        state = self.state.value

        submitted_at: None | str
        if isinstance(self.submitted_at, datetime.datetime):
            submitted_at = self.submitted_at.isoformat()
        else:
            submitted_at = self.submitted_at

        summary = self.summary

        title = self.title

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "categories": categories,
                "listed": listed,
                "membership": membership,
                "ownerHandle": owner_handle,
                "reason": reason,
                "spaceId": space_id,
                "spaceName": space_name,
                "state": state,
                "submittedAt": submitted_at,
                "summary": summary,
                "title": title,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        categories = cast(list[str], d.pop("categories"))

        listed = d.pop("listed")

        membership = ReviewedListingViewMembership(d.pop("membership"))

        owner_handle = d.pop("ownerHandle")

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        space_id = d.pop("spaceId")

        space_name = d.pop("spaceName")

        state = ReviewedListingViewState(d.pop("state"))

        def _parse_submitted_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submitted_at_type_0 = datetime.datetime.fromisoformat(data)

                return submitted_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        submitted_at = _parse_submitted_at(d.pop("submittedAt"))

        summary = d.pop("summary")

        title = d.pop("title")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        reviewed_listing_view = cls(
            categories=categories,
            listed=listed,
            membership=membership,
            owner_handle=owner_handle,
            reason=reason,
            space_id=space_id,
            space_name=space_name,
            state=state,
            submitted_at=submitted_at,
            summary=summary,
            title=title,
            updated_at=updated_at,
        )

        reviewed_listing_view.additional_properties = d
        return reviewed_listing_view

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
