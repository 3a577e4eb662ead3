from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.marketplace_settings_change_membership import (
    MarketplaceSettingsChangeMembership,
)
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.marketplace_settings_change_rules_type_0 import (
        MarketplaceSettingsChangeRulesType0,
    )


T = TypeVar("T", bound="MarketplaceSettingsChange")


@_attrs_define
class MarketplaceSettingsChange:
    """What a PUT may send; members left out keep their value. The handler reads the body as a map so it
    can name every unknown or read-only property; this type documents it.

        Attributes:
            categories (list[str] | None | Unset):
            membership (MarketplaceSettingsChangeMembership | Unset): `OPEN`, `APPROVAL` or `CLOSED`; applies at once,
                without approval.
            rules (MarketplaceSettingsChangeRulesType0 | None | Unset): The owner's registration rules, checked against the
                rule module's schema; apply at once.
            submit (bool | None | Unset): `true` sends the listing to the operator (DRAFT or REJECTED to SUBMITTED); it
                needs a title and
                a summary. A changed title, summary or categories of an APPROVED listing go back to DRAFT, or
                to SUBMITTED with `submit`; the approved text stays listed meanwhile.
            summary (None | str | Unset):
            title (None | str | Unset):
    """

    categories: list[str] | None | Unset = UNSET
    membership: MarketplaceSettingsChangeMembership | Unset = UNSET
    rules: MarketplaceSettingsChangeRulesType0 | None | Unset = UNSET
    submit: bool | None | Unset = UNSET
    summary: None | str | Unset = UNSET
    title: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.marketplace_settings_change_rules_type_0 import (
            MarketplaceSettingsChangeRulesType0,
        )

        categories: list[str] | None | Unset
        if isinstance(self.categories, Unset):
            categories = UNSET
        elif isinstance(self.categories, list):
            categories = self.categories

        else:
            categories = self.categories

        membership: str | Unset = UNSET
        if not isinstance(self.membership, Unset):
            membership = self.membership.value

        rules: dict[str, Any] | None | Unset
        if isinstance(self.rules, Unset):
            rules = UNSET
        elif isinstance(self.rules, MarketplaceSettingsChangeRulesType0):
            rules = self.rules.to_dict()
        else:
            rules = self.rules

        submit: bool | None | Unset
        if isinstance(self.submit, Unset):
            submit = UNSET
        else:
            submit = self.submit

        summary: None | str | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        else:
            summary = self.summary

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if categories is not UNSET:
            field_dict["categories"] = categories
        if membership is not UNSET:
            field_dict["membership"] = membership
        if rules is not UNSET:
            field_dict["rules"] = rules
        if submit is not UNSET:
            field_dict["submit"] = submit
        if summary is not UNSET:
            field_dict["summary"] = summary
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.marketplace_settings_change_rules_type_0 import (
            MarketplaceSettingsChangeRulesType0,
        )

        d = dict(src_dict)

        def _parse_categories(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                categories_type_0 = cast(list[str], data)

                return categories_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        categories = _parse_categories(d.pop("categories", UNSET))

        _membership = d.pop("membership", UNSET)
        membership: MarketplaceSettingsChangeMembership | Unset
        if isinstance(_membership, Unset):
            membership = UNSET
        else:
            membership = MarketplaceSettingsChangeMembership(_membership)

        def _parse_rules(
            data: object,
        ) -> MarketplaceSettingsChangeRulesType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                rules_type_0 = MarketplaceSettingsChangeRulesType0.from_dict(data)

                return rules_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(MarketplaceSettingsChangeRulesType0 | None | Unset, data)

        rules = _parse_rules(d.pop("rules", UNSET))

        def _parse_submit(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        submit = _parse_submit(d.pop("submit", UNSET))

        def _parse_summary(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        marketplace_settings_change = cls(
            categories=categories,
            membership=membership,
            rules=rules,
            submit=submit,
            summary=summary,
            title=title,
        )

        return marketplace_settings_change
