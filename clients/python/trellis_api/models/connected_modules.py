from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.connected_module import ConnectedModule


T = TypeVar("T", bound="ConnectedModules")


@_attrs_define
class ConnectedModules:
    """`{modules: [{moduleId, config}]}`: what `GET` answers and `PUT` takes.

    Attributes:
        modules (list[ConnectedModule]):
    """

    modules: list[ConnectedModule]

    def to_dict(self) -> dict[str, Any]:
        modules = []
        for modules_item_data in self.modules:
            modules_item = modules_item_data.to_dict()
            modules.append(modules_item)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "modules": modules,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.connected_module import ConnectedModule

        d = dict(src_dict)
        modules = []
        _modules = d.pop("modules")
        for modules_item_data in _modules:
            modules_item = ConnectedModule.from_dict(modules_item_data)

            modules.append(modules_item)

        connected_modules = cls(
            modules=modules,
        )

        return connected_modules
