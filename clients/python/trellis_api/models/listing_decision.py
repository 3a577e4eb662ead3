from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.listing_decision_approved import ListingDecisionApproved
from ..types import UNSET, Unset

T = TypeVar("T", bound="ListingDecision")


@_attrs_define
class ListingDecision:
    """The operator's decision. The handler reads the body as a map so it can name every unknown
    property; this type documents it.

        Attributes:
            approved (ListingDecisionApproved): `YES` lists the space with the submitted text; `NO` rejects it.
            reason (None | str | Unset): Required with `NO` (the owner reads it); up to 2,000 characters.
    """

    approved: ListingDecisionApproved
    reason: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        approved = self.approved.value

        reason: None | str | Unset
        if isinstance(self.reason, Unset):
            reason = UNSET
        else:
            reason = self.reason

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "approved": approved,
            }
        )
        if reason is not UNSET:
            field_dict["reason"] = reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approved = ListingDecisionApproved(d.pop("approved"))

        def _parse_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        reason = _parse_reason(d.pop("reason", UNSET))

        listing_decision = cls(
            approved=approved,
            reason=reason,
        )

        return listing_decision
