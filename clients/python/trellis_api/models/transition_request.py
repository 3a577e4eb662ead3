from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="TransitionRequest")


@_attrs_define
class TransitionRequest:
    """
    Attributes:
        transition_id (UUID): One of the item's `transitions[].transitionId`.
    """

    transition_id: UUID

    def to_dict(self) -> dict[str, Any]:
        transition_id = str(self.transition_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "transitionId": transition_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        transition_id = UUID(d.pop("transitionId"))

        transition_request = cls(
            transition_id=transition_id,
        )

        return transition_request
