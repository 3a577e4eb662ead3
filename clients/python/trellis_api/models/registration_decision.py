from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.registration_decision_approved import RegistrationDecisionApproved

T = TypeVar("T", bound="RegistrationDecision")


@_attrs_define
class RegistrationDecision:
    """The owner's decision on a registration. The handler reads the body as a map so it can name
    every unknown property; this type documents it.

        Attributes:
            approved (RegistrationDecisionApproved): `YES` makes the user a member; `NO` declines. Either way the user gets
                a message from `system`.
            registration_id (UUID):
    """

    approved: RegistrationDecisionApproved
    registration_id: UUID

    def to_dict(self) -> dict[str, Any]:
        approved = self.approved.value

        registration_id = str(self.registration_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "approved": approved,
                "registrationId": registration_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approved = RegistrationDecisionApproved(d.pop("approved"))

        registration_id = UUID(d.pop("registrationId"))

        registration_decision = cls(
            approved=approved,
            registration_id=registration_id,
        )

        return registration_decision
