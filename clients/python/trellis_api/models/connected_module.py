from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.connected_module_config import ConnectedModuleConfig


T = TypeVar("T", bound="ConnectedModule")


@_attrs_define
class ConnectedModule:
    """One connected module and the configuration the space gave it.

    Attributes:
        config (ConnectedModuleConfig): Checked against the module's `configSchema`; missing or `null` means `{}`.
        module_id (str):
    """

    config: ConnectedModuleConfig
    module_id: str

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        module_id = self.module_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "config": config,
                "moduleId": module_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.connected_module_config import ConnectedModuleConfig

        d = dict(src_dict)
        config = ConnectedModuleConfig.from_dict(d.pop("config"))

        module_id = d.pop("moduleId")

        connected_module = cls(
            config=config,
            module_id=module_id,
        )

        return connected_module
