from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.workflow_history_entry_action import WorkflowHistoryEntryAction

if TYPE_CHECKING:
    from ..models.actor import Actor


T = TypeVar("T", bound="WorkflowHistoryEntry")


@_attrs_define
class WorkflowHistoryEntry:
    """One entry of an item's workflow audit trail.

    Attributes:
        action (WorkflowHistoryEntryAction): STARTED, MOVED or PATCHED.
        actor (Actor):
        at (datetime.datetime):
        changed_fields (list[str]):
        event_id (str):
        from_workbasket_id (None | str):
        to_workbasket_id (None | str):
        transition_id (None | str):
    """

    action: WorkflowHistoryEntryAction
    actor: Actor
    at: datetime.datetime
    changed_fields: list[str]
    event_id: str
    from_workbasket_id: None | str
    to_workbasket_id: None | str
    transition_id: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action.value

        actor = self.actor.to_dict()

        at = self.at.isoformat()

        changed_fields = self.changed_fields

        event_id = self.event_id

        from_workbasket_id: None | str
        from_workbasket_id = self.from_workbasket_id

        to_workbasket_id: None | str
        to_workbasket_id = self.to_workbasket_id

        transition_id: None | str
        transition_id = self.transition_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "actor": actor,
                "at": at,
                "changedFields": changed_fields,
                "eventId": event_id,
                "fromWorkbasketId": from_workbasket_id,
                "toWorkbasketId": to_workbasket_id,
                "transitionId": transition_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.actor import Actor

        d = dict(src_dict)
        action = WorkflowHistoryEntryAction(d.pop("action"))

        actor = Actor.from_dict(d.pop("actor"))

        at = datetime.datetime.fromisoformat(d.pop("at"))

        changed_fields = cast(list[str], d.pop("changedFields"))

        event_id = d.pop("eventId")

        def _parse_from_workbasket_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        from_workbasket_id = _parse_from_workbasket_id(d.pop("fromWorkbasketId"))

        def _parse_to_workbasket_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        to_workbasket_id = _parse_to_workbasket_id(d.pop("toWorkbasketId"))

        def _parse_transition_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        transition_id = _parse_transition_id(d.pop("transitionId"))

        workflow_history_entry = cls(
            action=action,
            actor=actor,
            at=at,
            changed_fields=changed_fields,
            event_id=event_id,
            from_workbasket_id=from_workbasket_id,
            to_workbasket_id=to_workbasket_id,
            transition_id=transition_id,
        )

        workflow_history_entry.additional_properties = d
        return workflow_history_entry

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
