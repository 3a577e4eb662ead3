from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.configuration_wrapper_state import ConfigurationWrapperState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.configuration_wrapper_roles_type_0 import (
        ConfigurationWrapperRolesType0,
    )
    from ..models.form_configuration import FormConfiguration


T = TypeVar("T", bound="ConfigurationWrapper")


@_attrs_define
class ConfigurationWrapper:
    """`{id?, config, roles?: {editors: [handle]}, state?: ACTIVE | ARCHIVED}` (state on PUT only).

    Attributes:
        config (FormConfiguration): Contract 1.0.0. Structural text properties hold `$.` paths into the active language
            bundle of `translations`; every path must resolve to a string under `defaultLanguage`.
        id (None | str | Unset):
        roles (ConfigurationWrapperRolesType0 | None | Unset): `{editors: [handle, ...]}`: who besides the creator may
            update it.
        state (ConfigurationWrapperState | Unset): `ACTIVE` or `ARCHIVED`; on PUT only.
    """

    config: FormConfiguration
    id: None | str | Unset = UNSET
    roles: ConfigurationWrapperRolesType0 | None | Unset = UNSET
    state: ConfigurationWrapperState | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.configuration_wrapper_roles_type_0 import (
            ConfigurationWrapperRolesType0,
        )

        config = self.config.to_dict()

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        roles: dict[str, Any] | None | Unset
        if isinstance(self.roles, Unset):
            roles = UNSET
        elif isinstance(self.roles, ConfigurationWrapperRolesType0):
            roles = self.roles.to_dict()
        else:
            roles = self.roles

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "config": config,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id
        if roles is not UNSET:
            field_dict["roles"] = roles
        if state is not UNSET:
            field_dict["state"] = state

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.configuration_wrapper_roles_type_0 import (
            ConfigurationWrapperRolesType0,
        )
        from ..models.form_configuration import FormConfiguration

        d = dict(src_dict)
        config = FormConfiguration.from_dict(d.pop("config"))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_roles(data: object) -> ConfigurationWrapperRolesType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                roles_type_0 = ConfigurationWrapperRolesType0.from_dict(data)

                return roles_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConfigurationWrapperRolesType0 | None | Unset, data)

        roles = _parse_roles(d.pop("roles", UNSET))

        _state = d.pop("state", UNSET)
        state: ConfigurationWrapperState | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = ConfigurationWrapperState(_state)

        configuration_wrapper = cls(
            config=config,
            id=id,
            roles=roles,
            state=state,
        )

        return configuration_wrapper
