from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.workflow_validation_config import WorkflowValidationConfig


T = TypeVar("T", bound="WorkflowValidation")


@_attrs_define
class WorkflowValidation:
    """
    Attributes:
        config (WorkflowValidationConfig):
        id (str):
        valid (bool):
    """

    config: WorkflowValidationConfig
    id: str
    valid: bool
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        id = self.id

        valid = self.valid

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "id": id,
                "valid": valid,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_validation_config import WorkflowValidationConfig

        d = dict(src_dict)
        config = WorkflowValidationConfig.from_dict(d.pop("config"))

        id = d.pop("id")

        valid = d.pop("valid")

        workflow_validation = cls(
            config=config,
            id=id,
            valid=valid,
        )

        workflow_validation.additional_properties = d
        return workflow_validation

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
