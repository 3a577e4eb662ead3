from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.configuration_view_state import ConfigurationViewState

if TYPE_CHECKING:
    from ..models.configuration_view_config import ConfigurationViewConfig
    from ..models.roles import Roles


T = TypeVar("T", bound="ConfigurationView")


@_attrs_define
class ConfigurationView:
    """A stored configuration as clients see it.

    Attributes:
        config (ConfigurationViewConfig): The document, as validated (with its `id`). See the
            `FormConfigurationDocument` schema.
        created_at (datetime.datetime):
        id (str):
        owner_id (str):
        revision (int): Grows by one with every update.
        roles (Roles):
        state (ConfigurationViewState): `ACTIVE` or `ARCHIVED`.
        updated_at (datetime.datetime):
    """

    config: ConfigurationViewConfig
    created_at: datetime.datetime
    id: str
    owner_id: str
    revision: int
    roles: Roles
    state: ConfigurationViewState
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        created_at = self.created_at.isoformat()

        id = self.id

        owner_id = self.owner_id

        revision = self.revision

        roles = self.roles.to_dict()

        state = self.state.value

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
                "roles": roles,
                "state": state,
                "updatedAt": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.configuration_view_config import ConfigurationViewConfig
        from ..models.roles import Roles

        d = dict(src_dict)
        config = ConfigurationViewConfig.from_dict(d.pop("config"))

        created_at = datetime.datetime.fromisoformat(d.pop("createdAt"))

        id = d.pop("id")

        owner_id = d.pop("ownerId")

        revision = d.pop("revision")

        roles = Roles.from_dict(d.pop("roles"))

        state = ConfigurationViewState(d.pop("state"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updatedAt"))

        configuration_view = cls(
            config=config,
            created_at=created_at,
            id=id,
            owner_id=owner_id,
            revision=revision,
            roles=roles,
            state=state,
            updated_at=updated_at,
        )

        configuration_view.additional_properties = d
        return configuration_view

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
