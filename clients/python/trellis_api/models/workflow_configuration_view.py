from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_view_forms import (
        WorkflowConfigurationViewForms,
    )


T = TypeVar("T", bound="WorkflowConfigurationView")


@_attrs_define
class WorkflowConfigurationView:
    """
    Attributes:
        id (UUID): A UUID v4.
        label (str): A `$.` path into the language bundle.
        permission_slot (int): Slot of the deployment permission model.
        workbasket_ids (list[UUID]):
        description (str | Unset): A `$.` path into the language bundle.
        forms (WorkflowConfigurationViewForms | Unset): Keyed by form configuration id, each in the allowlist.
    """

    id: UUID
    label: str
    permission_slot: int
    workbasket_ids: list[UUID]
    description: str | Unset = UNSET
    forms: WorkflowConfigurationViewForms | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        label = self.label

        permission_slot = self.permission_slot

        workbasket_ids = []
        for workbasket_ids_item_data in self.workbasket_ids:
            workbasket_ids_item = str(workbasket_ids_item_data)
            workbasket_ids.append(workbasket_ids_item)

        description = self.description

        forms: dict[str, Any] | Unset = UNSET
        if not isinstance(self.forms, Unset):
            forms = self.forms.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "label": label,
                "permissionSlot": permission_slot,
                "workbasketIds": workbasket_ids,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if forms is not UNSET:
            field_dict["forms"] = forms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_view_forms import (
            WorkflowConfigurationViewForms,
        )

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        label = d.pop("label")

        permission_slot = d.pop("permissionSlot")

        workbasket_ids = []
        _workbasket_ids = d.pop("workbasketIds")
        for workbasket_ids_item_data in _workbasket_ids:
            workbasket_ids_item = UUID(workbasket_ids_item_data)

            workbasket_ids.append(workbasket_ids_item)

        description = d.pop("description", UNSET)

        _forms = d.pop("forms", UNSET)
        forms: WorkflowConfigurationViewForms | Unset
        if isinstance(_forms, Unset):
            forms = UNSET
        else:
            forms = WorkflowConfigurationViewForms.from_dict(_forms)

        workflow_configuration_view = cls(
            id=id,
            label=label,
            permission_slot=permission_slot,
            workbasket_ids=workbasket_ids,
            description=description,
            forms=forms,
        )

        workflow_configuration_view.additional_properties = d
        return workflow_configuration_view

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
