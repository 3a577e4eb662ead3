from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.instance_view_state import InstanceViewState

if TYPE_CHECKING:
    from ..models.instance_view_fields import InstanceViewFields
    from ..models.instance_view_integrations import InstanceViewIntegrations
    from ..models.instance_view_metadata import InstanceViewMetadata


T = TypeVar("T", bound="InstanceView")


@_attrs_define
class InstanceView:
    """A form instance. `fields` holds the answers by field id; file fields hold their attachment
    descriptors.

        Attributes:
            configuration_id (str):
            created_at (datetime.datetime):
            fields (InstanceViewFields):
            form_id (str):
            integrations (InstanceViewIntegrations):
            language (str):
            metadata (InstanceViewMetadata):
            revision (int):
            state (InstanceViewState): `DRAFT` or `SUBMITTED`.
            updated_at (datetime.datetime):
    """

    configuration_id: str
    created_at: datetime.datetime
    fields: InstanceViewFields
    form_id: str
    integrations: InstanceViewIntegrations
    language: str
    metadata: InstanceViewMetadata
    revision: int
    state: InstanceViewState
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        configuration_id = self.configuration_id

        created_at = self.created_at.isoformat()

        fields = self.fields.to_dict()

        form_id = self.form_id

        integrations = self.integrations.to_dict()

        language = self.language

        metadata = self.metadata.to_dict()

        revision = self.revision

        state = self.state.value

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "configurationId": configuration_id,
                "createdAt": created_at,
                "fields": fields,
                "formId": form_id,
                "integrations": integrations,
                "language": language,
                "metadata": metadata,
                "revision": revision,
                "state": state,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.instance_view_fields import InstanceViewFields
        from ..models.instance_view_integrations import InstanceViewIntegrations
        from ..models.instance_view_metadata import InstanceViewMetadata

        d = dict(src_dict)
        configuration_id = d.pop("configurationId")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        fields = InstanceViewFields.from_dict(d.pop("fields"))

        form_id = d.pop("formId")

        integrations = InstanceViewIntegrations.from_dict(d.pop("integrations"))

        language = d.pop("language")

        metadata = InstanceViewMetadata.from_dict(d.pop("metadata"))

        revision = d.pop("revision")

        state = InstanceViewState(d.pop("state"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        instance_view = cls(
            configuration_id=configuration_id,
            created_at=created_at,
            fields=fields,
            form_id=form_id,
            integrations=integrations,
            language=language,
            metadata=metadata,
            revision=revision,
            state=state,
            updated_at=updated_at,
        )

        instance_view.additional_properties = d
        return instance_view

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
