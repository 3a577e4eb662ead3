from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.start_workflow_item_type_type_0 import StartWorkflowItemTypeType0
from ..types import UNSET, Unset

T = TypeVar("T", bound="StartWorkflow")


@_attrs_define
class StartWorkflow:
    """`{workflowConfigurationId, itemType?, itemId, confirmSwitch?}`.

    Attributes:
        item_id (str):
        workflow_configuration_id (str):
        confirm_switch (bool | None | Unset): Move an item that is in another workflow: without it, such an item is 409.
        item_type (None | StartWorkflowItemTypeType0 | Unset): Only `FORM` items exist.
    """

    item_id: str
    workflow_configuration_id: str
    confirm_switch: bool | None | Unset = UNSET
    item_type: None | StartWorkflowItemTypeType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        item_id = self.item_id

        workflow_configuration_id = self.workflow_configuration_id

        confirm_switch: bool | None | Unset
        if isinstance(self.confirm_switch, Unset):
            confirm_switch = UNSET
        else:
            confirm_switch = self.confirm_switch

        item_type: None | str | Unset
        if isinstance(self.item_type, Unset):
            item_type = UNSET
        elif isinstance(self.item_type, StartWorkflowItemTypeType0):
            item_type = self.item_type.value
        else:
            item_type = self.item_type

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "itemId": item_id,
                "workflowConfigurationId": workflow_configuration_id,
            }
        )
        if confirm_switch is not UNSET:
            field_dict["confirmSwitch"] = confirm_switch
        if item_type is not UNSET:
            field_dict["itemType"] = item_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        item_id = d.pop("itemId")

        workflow_configuration_id = d.pop("workflowConfigurationId")

        def _parse_confirm_switch(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        confirm_switch = _parse_confirm_switch(d.pop("confirmSwitch", UNSET))

        def _parse_item_type(data: object) -> None | StartWorkflowItemTypeType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                item_type_type_0 = StartWorkflowItemTypeType0(data)

                return item_type_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | StartWorkflowItemTypeType0 | Unset, data)

        item_type = _parse_item_type(d.pop("itemType", UNSET))

        start_workflow = cls(
            item_id=item_id,
            workflow_configuration_id=workflow_configuration_id,
            confirm_switch=confirm_switch,
            item_type=item_type,
        )

        return start_workflow
