from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_transition import (
        WorkflowConfigurationTransition,
    )


T = TypeVar("T", bound="WorkflowConfigurationWorkbasket")


@_attrs_define
class WorkflowConfigurationWorkbasket:
    """
    Attributes:
        id (UUID): A UUID v4.
        label (str): A `$.` path into the language bundle.
        order (float):
        transitions (list[WorkflowConfigurationTransition]): Empty for a terminal workbasket.
        terminal (bool | Unset):  Default: False.
    """

    id: UUID
    label: str
    order: float
    transitions: list[WorkflowConfigurationTransition]
    terminal: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        label = self.label

        order = self.order

        transitions = []
        for transitions_item_data in self.transitions:
            transitions_item = transitions_item_data.to_dict()
            transitions.append(transitions_item)

        terminal = self.terminal

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "label": label,
                "order": order,
                "transitions": transitions,
            }
        )
        if terminal is not UNSET:
            field_dict["terminal"] = terminal

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_transition import (
            WorkflowConfigurationTransition,
        )

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        label = d.pop("label")

        order = d.pop("order")

        transitions = []
        _transitions = d.pop("transitions")
        for transitions_item_data in _transitions:
            transitions_item = WorkflowConfigurationTransition.from_dict(
                transitions_item_data
            )

            transitions.append(transitions_item)

        terminal = d.pop("terminal", UNSET)

        workflow_configuration_workbasket = cls(
            id=id,
            label=label,
            order=order,
            transitions=transitions,
            terminal=terminal,
        )

        workflow_configuration_workbasket.additional_properties = d
        return workflow_configuration_workbasket

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
