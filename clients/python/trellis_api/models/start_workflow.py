from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="StartWorkflow")


@_attrs_define
class StartWorkflow:
    """`{workflowConfigurationId, itemType?, itemId, confirmSwitch?}`.

    Attributes:
        confirm_switch (bool | None | Unset):
        item_id (None | str | Unset):
        item_type (None | str | Unset):
        workflow_configuration_id (None | str | Unset):
    """

    confirm_switch: bool | None | Unset = UNSET
    item_id: None | str | Unset = UNSET
    item_type: None | str | Unset = UNSET
    workflow_configuration_id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        confirm_switch: bool | None | Unset
        if isinstance(self.confirm_switch, Unset):
            confirm_switch = UNSET
        else:
            confirm_switch = self.confirm_switch

        item_id: None | str | Unset
        if isinstance(self.item_id, Unset):
            item_id = UNSET
        else:
            item_id = self.item_id

        item_type: None | str | Unset
        if isinstance(self.item_type, Unset):
            item_type = UNSET
        else:
            item_type = self.item_type

        workflow_configuration_id: None | str | Unset
        if isinstance(self.workflow_configuration_id, Unset):
            workflow_configuration_id = UNSET
        else:
            workflow_configuration_id = self.workflow_configuration_id

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if confirm_switch is not UNSET:
            field_dict["confirmSwitch"] = confirm_switch
        if item_id is not UNSET:
            field_dict["itemId"] = item_id
        if item_type is not UNSET:
            field_dict["itemType"] = item_type
        if workflow_configuration_id is not UNSET:
            field_dict["workflowConfigurationId"] = workflow_configuration_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_confirm_switch(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        confirm_switch = _parse_confirm_switch(d.pop("confirmSwitch", UNSET))

        def _parse_item_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        item_id = _parse_item_id(d.pop("itemId", UNSET))

        def _parse_item_type(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        item_type = _parse_item_type(d.pop("itemType", UNSET))

        def _parse_workflow_configuration_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        workflow_configuration_id = _parse_workflow_configuration_id(
            d.pop("workflowConfigurationId", UNSET)
        )

        start_workflow = cls(
            confirm_switch=confirm_switch,
            item_id=item_id,
            item_type=item_type,
            workflow_configuration_id=workflow_configuration_id,
        )

        return start_workflow
