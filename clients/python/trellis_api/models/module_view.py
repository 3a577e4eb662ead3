from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.module_view_config_schema import ModuleViewConfigSchema


T = TypeVar("T", bound="ModuleView")


@_attrs_define
class ModuleView:
    """One enabled module.

    Attributes:
        config_schema (ModuleViewConfigSchema): JSON Schema (2020-12) of the configuration a space gives the module.
        description (str):
        id (str):
        kind (str): `space`, `marketplace-rule` or `analysis-step`.
        name (str):
        permissions (list[str]): What the deployment grants it: `key-value`, `logging`, `item-read`, `asset-read`,
            `outbound-http:HOST`.
        version (str):
        wit_version (str): The version of the module WIT the component targets: `0.1.0`, `0.2.0` or `0.3.0`. Every
            earlier
            0.x version keeps running, adapted (see the compatibility policy in docs/modules.md). Example: 0.3.0.
    """

    config_schema: ModuleViewConfigSchema
    description: str
    id: str
    kind: str
    name: str
    permissions: list[str]
    version: str
    wit_version: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config_schema = self.config_schema.to_dict()

        description = self.description

        id = self.id

        kind = self.kind

        name = self.name

        permissions = self.permissions

        version = self.version

        wit_version = self.wit_version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "configSchema": config_schema,
                "description": description,
                "id": id,
                "kind": kind,
                "name": name,
                "permissions": permissions,
                "version": version,
                "witVersion": wit_version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.module_view_config_schema import ModuleViewConfigSchema

        d = dict(src_dict)
        config_schema = ModuleViewConfigSchema.from_dict(d.pop("configSchema"))

        description = d.pop("description")

        id = d.pop("id")

        kind = d.pop("kind")

        name = d.pop("name")

        permissions = cast(list[str], d.pop("permissions"))

        version = d.pop("version")

        wit_version = d.pop("witVersion")

        module_view = cls(
            config_schema=config_schema,
            description=description,
            id=id,
            kind=kind,
            name=name,
            permissions=permissions,
            version=version,
            wit_version=wit_version,
        )

        module_view.additional_properties = d
        return module_view

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
