from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="LiveRegistrationChanged")


@_attrs_define
class LiveRegistrationChanged:
    """`registration.changed`, to the registrant and the space's owner.

    Attributes:
        registration_id (str):
        space_id (str):
        state (str):
    """

    registration_id: str
    space_id: str
    state: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        registration_id = self.registration_id

        space_id = self.space_id

        state = self.state

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "registrationId": registration_id,
                "spaceId": space_id,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        registration_id = d.pop("registrationId")

        space_id = d.pop("spaceId")

        state = d.pop("state")

        live_registration_changed = cls(
            registration_id=registration_id,
            space_id=space_id,
            state=state,
        )

        live_registration_changed.additional_properties = d
        return live_registration_changed

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
