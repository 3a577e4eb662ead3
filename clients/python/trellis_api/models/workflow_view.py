from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.workflow_view_config import WorkflowViewConfig


T = TypeVar("T", bound="WorkflowView")


@_attrs_define
class WorkflowView:
    """A stored workflow configuration.

    Attributes:
        config (WorkflowViewConfig): The document as validated (with its `id`); see the `WorkflowConfigurationDocument`
            schema.
        created_at (datetime.datetime):
        id (str):
        owner_id (str):
        revision (int):
        updated_at (datetime.datetime):
    """

    config: WorkflowViewConfig
    created_at: datetime.datetime
    id: str
    owner_id: str
    revision: int
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        created_at = self.created_at.isoformat()

        id = self.id

        owner_id = self.owner_id

        revision = self.revision

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "createdAt": created_at,
                "id": id,
                "ownerId": owner_id,
                "revision": revision,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_view_config import WorkflowViewConfig

        d = dict(src_dict)
        config = WorkflowViewConfig.from_dict(d.pop("config"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        id = d.pop("id")

        owner_id = d.pop("ownerId")

        revision = d.pop("revision")

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        workflow_view = cls(
            config=config,
            created_at=created_at,
            id=id,
            owner_id=owner_id,
            revision=revision,
            updated_at=updated_at,
        )

        workflow_view.additional_properties = d
        return workflow_view

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
