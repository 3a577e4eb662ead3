from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.instance_summary_state import InstanceSummaryState

T = TypeVar("T", bound="InstanceSummary")


@_attrs_define
class InstanceSummary:
    """A list entry: the instance without its answers.

    Attributes:
        configuration_id (str):
        created_at (datetime.datetime):
        form_id (str):
        language (str):
        space_id (None | str):
        state (InstanceSummaryState):
        updated_at (datetime.datetime):
    """

    configuration_id: str
    created_at: datetime.datetime
    form_id: str
    language: str
    space_id: None | str
    state: InstanceSummaryState
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        configuration_id = self.configuration_id

        created_at = self.created_at.isoformat()

        form_id = self.form_id

        language = self.language

        space_id: None | str
        space_id = self.space_id

        state = self.state.value

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "configurationId": configuration_id,
                "createdAt": created_at,
                "formId": form_id,
                "language": language,
                "spaceId": space_id,
                "state": state,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        configuration_id = d.pop("configurationId")

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        form_id = d.pop("formId")

        language = d.pop("language")

        def _parse_space_id(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        space_id = _parse_space_id(d.pop("spaceId"))

        state = InstanceSummaryState(d.pop("state"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        instance_summary = cls(
            configuration_id=configuration_id,
            created_at=created_at,
            form_id=form_id,
            language=language,
            space_id=space_id,
            state=state,
            updated_at=updated_at,
        )

        instance_summary.additional_properties = d
        return instance_summary

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
