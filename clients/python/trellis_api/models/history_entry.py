from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.history_entry_action import HistoryEntryAction
from ..models.history_entry_state import HistoryEntryState

if TYPE_CHECKING:
    from ..models.actor import Actor


T = TypeVar("T", bound="HistoryEntry")


@_attrs_define
class HistoryEntry:
    """One entry of an instance's audit trail.

    Attributes:
        action (HistoryEntryAction): CREATED, UPDATED or SUBMITTED.
        actor (Actor):
        at (datetime.datetime):
        changed_fields (list[str]): Field ids whose answers changed.
        event_id (str):
        state (HistoryEntryState): The instance's state after the change.
    """

    action: HistoryEntryAction
    actor: Actor
    at: datetime.datetime
    changed_fields: list[str]
    event_id: str
    state: HistoryEntryState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action.value

        actor = self.actor.to_dict()

        at = self.at.isoformat()

        changed_fields = self.changed_fields

        event_id = self.event_id

        state = self.state.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "at": at,
                "changedFields": changed_fields,
                "eventId": event_id,
                "state": state,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.actor import Actor

        d = dict(src_dict)
        action = HistoryEntryAction(d.pop("action"))

        actor = Actor.from_dict(d.pop("actor"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        changed_fields = cast(list[str], d.pop("changedFields"))

        event_id = d.pop("eventId")

        state = HistoryEntryState(d.pop("state"))

        history_entry = cls(
            action=action,
            actor=actor,
            at=at,
            changed_fields=changed_fields,
            event_id=event_id,
            state=state,
        )

        history_entry.additional_properties = d
        return history_entry

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
