from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.marketplace_settings_view_membership import (
    MarketplaceSettingsViewMembership,
)
from ..models.marketplace_settings_view_state import MarketplaceSettingsViewState

if TYPE_CHECKING:
    from ..models.marketplace_settings_view_rules import MarketplaceSettingsViewRules


T = TypeVar("T", bound="MarketplaceSettingsView")


@_attrs_define
class MarketplaceSettingsView:
    """A space's marketplace settings as its owner sees them.

    Attributes:
        categories (list[str]): Up to 10 distinct categories of up to 40 characters.
        listed (bool): Whether the marketplace shows the space: true from the first approval on, with the text
            approved last (a changed text waits for approval while the approved one stays listed).
        membership (MarketplaceSettingsViewMembership): `OPEN`, `APPROVAL` (default) or `CLOSED`.
        reason (None | str): The operator's reason of the last decision.
        rules (MarketplaceSettingsViewRules): The owner's registration rules, for the deployment's rule module (its
            configuration schema
            is in `GET /v0/modules`); `{}` when none.
        space_id (str):
        state (MarketplaceSettingsViewState): `DRAFT`, `SUBMITTED`, `APPROVED` or `REJECTED`: where the preparation is.
        summary (str): The prepared summary (up to 2,000 characters); prefilled with the space's summary.
        title (str): The prepared title (up to 100 characters); prefilled with the space's display name.
        updated_at (datetime.datetime | None): `null` until the settings were first saved.
    """

    categories: list[str]
    listed: bool
    membership: MarketplaceSettingsViewMembership
    reason: None | str
    rules: MarketplaceSettingsViewRules
    space_id: str
    state: MarketplaceSettingsViewState
    summary: str
    title: str
    updated_at: datetime.datetime | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        categories = self.categories

        listed = self.listed

        membership = self.membership.value

        reason: None | str
        reason = self.reason

        rules = self.rules.to_dict()

        space_id = self.space_id

        state = self.state.value

        summary = self.summary

        title = self.title

        updated_at: None | str
        if isinstance(self.updated_at, datetime.datetime):
            updated_at = self.updated_at.isoformat()
        else:
            updated_at = self.updated_at

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "categories": categories,
                "listed": listed,
                "membership": membership,
                "reason": reason,
                "rules": rules,
                "spaceId": space_id,
                "state": state,
                "summary": summary,
                "title": title,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.marketplace_settings_view_rules import (
            MarketplaceSettingsViewRules,
        )

        d = dict(src_dict)
        categories = cast(list[str], d.pop("categories"))

        listed = d.pop("listed")

        membership = MarketplaceSettingsViewMembership(d.pop("membership"))

        def _parse_reason(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        reason = _parse_reason(d.pop("reason"))

        rules = MarketplaceSettingsViewRules.from_dict(d.pop("rules"))

        space_id = d.pop("spaceId")

        state = MarketplaceSettingsViewState(d.pop("state"))

        summary = d.pop("summary")

        title = d.pop("title")

        def _parse_updated_at(data: object) -> datetime.datetime | None:
            if data is None:
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                updated_at_type_0 = datetime.datetime.fromisoformat(data)

                return updated_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None, data)

        updated_at = _parse_updated_at(d.pop("updatedAt"))

        marketplace_settings_view = cls(
            categories=categories,
            listed=listed,
            membership=membership,
            reason=reason,
            rules=rules,
            space_id=space_id,
            state=state,
            summary=summary,
            title=title,
            updated_at=updated_at,
        )

        marketplace_settings_view.additional_properties = d
        return marketplace_settings_view

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
