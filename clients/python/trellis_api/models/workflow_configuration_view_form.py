from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration_detail_field import (
        WorkflowConfigurationDetailField,
    )
    from ..models.workflow_configuration_view_form_metadata import (
        WorkflowConfigurationViewFormMetadata,
    )


T = TypeVar("T", bound="WorkflowConfigurationViewForm")


@_attrs_define
class WorkflowConfigurationViewForm:
    """
    Attributes:
        detail_fields (list[WorkflowConfigurationDetailField] | Unset):
        list_fields (list[str] | Unset): Field keys of the form configuration.
        metadata (WorkflowConfigurationViewFormMetadata | Unset):
    """

    detail_fields: list[WorkflowConfigurationDetailField] | Unset = UNSET
    list_fields: list[str] | Unset = UNSET
    metadata: WorkflowConfigurationViewFormMetadata | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        detail_fields: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.detail_fields, Unset):
            detail_fields = []
            for detail_fields_item_data in self.detail_fields:
                detail_fields_item = detail_fields_item_data.to_dict()
                detail_fields.append(detail_fields_item)

        list_fields: list[str] | Unset = UNSET
        if not isinstance(self.list_fields, Unset):
            list_fields = self.list_fields

        metadata: dict[str, Any] | Unset = UNSET
        if not isinstance(self.metadata, Unset):
            metadata = self.metadata.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if detail_fields is not UNSET:
            field_dict["detailFields"] = detail_fields
        if list_fields is not UNSET:
            field_dict["listFields"] = list_fields
        if metadata is not UNSET:
            field_dict["metadata"] = metadata

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration_detail_field import (
            WorkflowConfigurationDetailField,
        )
        from ..models.workflow_configuration_view_form_metadata import (
            WorkflowConfigurationViewFormMetadata,
        )

        d = dict(src_dict)
        _detail_fields = d.pop("detailFields", UNSET)
        detail_fields: list[WorkflowConfigurationDetailField] | Unset = UNSET
        if _detail_fields is not UNSET:
            detail_fields = []
            for detail_fields_item_data in _detail_fields:
                detail_fields_item = WorkflowConfigurationDetailField.from_dict(
                    detail_fields_item_data
                )

                detail_fields.append(detail_fields_item)

        list_fields = cast(list[str], d.pop("listFields", UNSET))

        _metadata = d.pop("metadata", UNSET)
        metadata: WorkflowConfigurationViewFormMetadata | Unset
        if isinstance(_metadata, Unset):
            metadata = UNSET
        else:
            metadata = WorkflowConfigurationViewFormMetadata.from_dict(_metadata)

        workflow_configuration_view_form = cls(
            detail_fields=detail_fields,
            list_fields=list_fields,
            metadata=metadata,
        )

        workflow_configuration_view_form.additional_properties = d
        return workflow_configuration_view_form

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
