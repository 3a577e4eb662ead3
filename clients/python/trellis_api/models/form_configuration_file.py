from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="FormConfigurationFile")


@_attrs_define
class FormConfigurationFile:
    """File fields only.

    Attributes:
        accept (list[str] | str | Unset): MIME types (image/* allowed) and/or .extensions; a string may list several,
            comma-separated.
        max_bytes (int | Unset):
        max_files (int | Unset): Only with multiple: true.
        multiple (bool | Unset):  Default: False.
    """

    accept: list[str] | str | Unset = UNSET
    max_bytes: int | Unset = UNSET
    max_files: int | Unset = UNSET
    multiple: bool | Unset = False
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        accept: list[str] | str | Unset
        if isinstance(self.accept, Unset):
            accept = UNSET
        elif isinstance(self.accept, list):
            accept = self.accept

        else:
            accept = self.accept

        max_bytes = self.max_bytes

        max_files = self.max_files

        multiple = self.multiple

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if accept is not UNSET:
            field_dict["accept"] = accept
        if max_bytes is not UNSET:
            field_dict["maxBytes"] = max_bytes
        if max_files is not UNSET:
            field_dict["maxFiles"] = max_files
        if multiple is not UNSET:
            field_dict["multiple"] = multiple

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_accept(data: object) -> list[str] | str | Unset:
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                accept_type_1 = cast(list[str], data)

                return accept_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | str | Unset, data)

        accept = _parse_accept(d.pop("accept", UNSET))

        max_bytes = d.pop("maxBytes", UNSET)

        max_files = d.pop("maxFiles", UNSET)

        multiple = d.pop("multiple", UNSET)

        form_configuration_file = cls(
            accept=accept,
            max_bytes=max_bytes,
            max_files=max_files,
            multiple=multiple,
        )

        form_configuration_file.additional_properties = d
        return form_configuration_file

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
