from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="AvailableTransition")


@_attrs_define
class AvailableTransition:
    """
    Attributes:
        label (None | str):
        target_workbasket_id (str):
        transition_id (str):
    """

    label: None | str
    target_workbasket_id: str
    transition_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        label: None | str
        label = self.label

        target_workbasket_id = self.target_workbasket_id

        transition_id = self.transition_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "label": label,
                "targetWorkbasketId": target_workbasket_id,
                "transitionId": transition_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_label(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        label = _parse_label(d.pop("label"))

        target_workbasket_id = d.pop("targetWorkbasketId")

        transition_id = d.pop("transitionId")

        available_transition = cls(
            label=label,
            target_workbasket_id=target_workbasket_id,
            transition_id=transition_id,
        )

        available_transition.additional_properties = d
        return available_transition

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
