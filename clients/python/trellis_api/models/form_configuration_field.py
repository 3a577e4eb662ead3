from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.form_configuration_field_type import FormConfigurationFieldType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_configuration_file import FormConfigurationFile
    from ..models.form_configuration_option import FormConfigurationOption


T = TypeVar("T", bound="FormConfigurationField")


@_attrs_define
class FormConfigurationField:
    """
    Attributes:
        id (UUID): A UUID v4, unique in the document.
        key (str): A structural key, used in translation paths; no dots.
        order (float):
        type_ (FormConfigurationFieldType):
        description (str | Unset): A `$.` path into the language bundle, e.g. `$.pages.p1.title`.
        editable (bool | Unset):  Default: True.
        file (FormConfigurationFile | Unset): File fields only.
        format_ (str | Unset): Date only: tokens YYYY MM DD HH mm ss and separators. Default: 'YYYY-MM-DD'.
        label (str | Unset): A `$.` path into the language bundle, e.g. `$.pages.p1.title`.
        max_length (int | Unset): Text and textarea only.
        min_length (int | Unset): Text and textarea only.
        options (list[FormConfigurationOption] | Unset): Dropdown only.
        placeholder (str | Unset): A `$.` path into the language bundle, e.g. `$.pages.p1.title`.
        required (bool | Unset):  Default: False.
        tooltip (str | Unset): A `$.` path into the language bundle, e.g. `$.pages.p1.title`.
        validation (str | Unset): Rust regex syntax, matched against the whole answer.
        value (str | Unset): Default answer; for a dropdown an option value.
        visible (bool | Unset):  Default: True.
    """

    id: UUID
    key: str
    order: float
    type_: FormConfigurationFieldType
    description: str | Unset = UNSET
    editable: bool | Unset = True
    file: FormConfigurationFile | Unset = UNSET
    format_: str | Unset = "YYYY-MM-DD"
    label: str | Unset = UNSET
    max_length: int | Unset = UNSET
    min_length: int | Unset = UNSET
    options: list[FormConfigurationOption] | Unset = UNSET
    placeholder: str | Unset = UNSET
    required: bool | Unset = False
    tooltip: str | Unset = UNSET
    validation: str | Unset = UNSET
    value: str | Unset = UNSET
    visible: bool | Unset = True
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        key = self.key

        order = self.order

        type_ = self.type_.value

        description = self.description

        editable = self.editable

        file: dict[str, Any] | Unset = UNSET
        if not isinstance(self.file, Unset):
            file = self.file.to_dict()

        format_ = self.format_

        label = self.label

        max_length = self.max_length

        min_length = self.min_length

        options: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.options, Unset):
            options = []
            for options_item_data in self.options:
                options_item = options_item_data.to_dict()
                options.append(options_item)

        placeholder = self.placeholder

        required = self.required

        tooltip = self.tooltip

        validation = self.validation

        value = self.value

        visible = self.visible

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "key": key,
                "order": order,
                "type": type_,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if editable is not UNSET:
            field_dict["editable"] = editable
        if file is not UNSET:
            field_dict["file"] = file
        if format_ is not UNSET:
            field_dict["format"] = format_
        if label is not UNSET:
            field_dict["label"] = label
        if max_length is not UNSET:
            field_dict["maxLength"] = max_length
        if min_length is not UNSET:
            field_dict["minLength"] = min_length
        if options is not UNSET:
            field_dict["options"] = options
        if placeholder is not UNSET:
            field_dict["placeholder"] = placeholder
        if required is not UNSET:
            field_dict["required"] = required
        if tooltip is not UNSET:
            field_dict["tooltip"] = tooltip
        if validation is not UNSET:
            field_dict["validation"] = validation
        if value is not UNSET:
            field_dict["value"] = value
        if visible is not UNSET:
            field_dict["visible"] = visible

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_configuration_file import FormConfigurationFile
        from ..models.form_configuration_option import FormConfigurationOption

        d = dict(src_dict)
        id = UUID(d.pop("id"))

        key = d.pop("key")

        order = d.pop("order")

        type_ = FormConfigurationFieldType(d.pop("type"))

        description = d.pop("description", UNSET)

        editable = d.pop("editable", UNSET)

        _file = d.pop("file", UNSET)
        file: FormConfigurationFile | Unset
        if isinstance(_file, Unset):
            file = UNSET
        else:
            file = FormConfigurationFile.from_dict(_file)

        format_ = d.pop("format", UNSET)

        label = d.pop("label", UNSET)

        max_length = d.pop("maxLength", UNSET)

        min_length = d.pop("minLength", UNSET)

        _options = d.pop("options", UNSET)
        options: list[FormConfigurationOption] | Unset = UNSET
        if _options is not UNSET:
            options = []
            for options_item_data in _options:
                options_item = FormConfigurationOption.from_dict(options_item_data)

                options.append(options_item)

        placeholder = d.pop("placeholder", UNSET)

        required = d.pop("required", UNSET)

        tooltip = d.pop("tooltip", UNSET)

        validation = d.pop("validation", UNSET)

        value = d.pop("value", UNSET)

        visible = d.pop("visible", UNSET)

        form_configuration_field = cls(
            id=id,
            key=key,
            order=order,
            type_=type_,
            description=description,
            editable=editable,
            file=file,
            format_=format_,
            label=label,
            max_length=max_length,
            min_length=min_length,
            options=options,
            placeholder=placeholder,
            required=required,
            tooltip=tooltip,
            validation=validation,
            value=value,
            visible=visible,
        )

        form_configuration_field.additional_properties = d
        return form_configuration_field

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
