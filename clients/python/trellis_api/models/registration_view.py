from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.registration_view_state import RegistrationViewState

T = TypeVar("T", bound="RegistrationView")


@_attrs_define
class RegistrationView:
    """A registration's state.

    Attributes:
        registration_id (None | str): `null` for the space's owner, who never registered.
        state (RegistrationViewState): `PENDING`, `APPROVED` or `REJECTED`.
    """

    registration_id: None | str
    state: RegistrationViewState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        registration_id: None | str
        registration_id = self.registration_id

        state = self.state.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "registrationId": registration_id,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_registration_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        registration_id = _parse_registration_id(d.pop("registrationId"))

        state = RegistrationViewState(d.pop("state"))

        registration_view = cls(
            registration_id=registration_id,
            state=state,
        )

        registration_view.additional_properties = d
        return registration_view

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
