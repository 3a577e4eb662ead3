from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.grant_view import GrantView


T = TypeVar("T", bound="Permissions")


@_attrs_define
class Permissions:
    """`{grants: [{handle, slots}]}`.

    Attributes:
        grants (list[GrantView]):
    """

    grants: list[GrantView]

    def to_dict(self) -> dict[str, Any]:
        grants = []
        for grants_item_data in self.grants:
            grants_item = grants_item_data.to_dict()
            grants.append(grants_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "grants": grants,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.grant_view import GrantView

        d = dict(src_dict)
        grants = []
        _grants = d.pop("grants")
        for grants_item_data in _grants:
            grants_item = GrantView.from_dict(grants_item_data)

            grants.append(grants_item)

        permissions = cls(
            grants=grants,
        )

        return permissions
