from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="RefusedModuleView")


@_attrs_define
class RefusedModuleView:
    """An entry of `[modules] enable` the host refused at start; the server runs without it.

    Attributes:
        entry (str): The entry as configured: `bundled module "tags"` or `module file /srv/m/poll.wasm`.
        id (None | str): The id of a bundled entry; null for a file entry.
        reason (str): Why it was refused, with every cause (also logged at start as an error).
    """

    entry: str
    id: None | str
    reason: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        entry = self.entry

        id: None | str
        id = self.id

        reason = self.reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "entry": entry,
                "id": id,
                "reason": reason,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        entry = d.pop("entry")

        def _parse_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        id = _parse_id(d.pop("id"))

        reason = d.pop("reason")

        refused_module_view = cls(
            entry=entry,
            id=id,
            reason=reason,
        )

        refused_module_view.additional_properties = d
        return refused_module_view

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
