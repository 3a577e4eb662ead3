from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.space_view_role import SpaceViewRole

T = TypeVar("T", bound="SpaceView")


@_attrs_define
class SpaceView:
    """A space as one of its members sees it.

    Attributes:
        created_at (datetime.datetime):
        display_name (str):
        name (str): A slug, unique in the deployment: 3 to 64 characters of a-z, 0-9 and `-`.
        role (SpaceViewRole): The caller's role: `owner`, `member`, or `reader` (a member of a channel the space is
            connected to, who reads what members read and writes nothing).
        space_id (str):
        summary (str):
        updated_at (datetime.datetime):
    """

    created_at: datetime.datetime
    display_name: str
    name: str
    role: SpaceViewRole
    space_id: str
    summary: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        display_name = self.display_name

        name = self.name

        role = self.role.value

        space_id = self.space_id

        summary = self.summary

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "createdAt": created_at,
                "displayName": display_name,
                "name": name,
                "role": role,
                "spaceId": space_id,
                "summary": summary,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        display_name = d.pop("displayName")

        name = d.pop("name")

        role = SpaceViewRole(d.pop("role"))

        space_id = d.pop("spaceId")

        summary = d.pop("summary")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        space_view = cls(
            created_at=created_at,
            display_name=display_name,
            name=name,
            role=role,
            space_id=space_id,
            summary=summary,
            updated_at=updated_at,
        )

        space_view.additional_properties = d
        return space_view

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
