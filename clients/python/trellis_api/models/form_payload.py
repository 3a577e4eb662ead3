from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.form_payload_state_type_0 import FormPayloadStateType0
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.form_integrations import FormIntegrations
    from ..models.form_metadata import FormMetadata
    from ..models.form_payload_fields_type_0 import FormPayloadFieldsType0


T = TypeVar("T", bound="FormPayload")


@_attrs_define
class FormPayload:
    """An instance's payload. The configuration decides the rest: which field ids `fields` takes and
    what each answer must be, which `metadata` and `integrations` members it enables. A member given
    as `null` counts as left out (in a patch, a `metadata` or `integrations` member set to `null` is removed).
    An item PATCH through a workflow view takes `fields` and `metadata` only.

        Attributes:
            configuration_id (None | str | Unset): The configuration's id: required to create, and a patch that gives it
                must name the same one.
            fields (FormPayloadFieldsType0 | None | Unset): Answers keyed by the configuration's field ids.
            integrations (FormIntegrations | None | Unset):
            language (None | str | Unset): One of the configuration's languages; to create, its default when left out.
            metadata (FormMetadata | None | Unset):
            state (FormPayloadStateType0 | None | Unset): `DRAFT` or `SUBMITTED` (the default to create); a patch may move
                DRAFT to SUBMITTED only.
    """

    configuration_id: None | str | Unset = UNSET
    fields: FormPayloadFieldsType0 | None | Unset = UNSET
    integrations: FormIntegrations | None | Unset = UNSET
    language: None | str | Unset = UNSET
    metadata: FormMetadata | None | Unset = UNSET
    state: FormPayloadStateType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.form_integrations import FormIntegrations
        from ..models.form_metadata import FormMetadata
        from ..models.form_payload_fields_type_0 import FormPayloadFieldsType0

        configuration_id: None | str | Unset
        if isinstance(self.configuration_id, Unset):
            configuration_id = UNSET
        else:
            configuration_id = self.configuration_id

        fields: dict[str, Any] | None | Unset
        if isinstance(self.fields, Unset):
            fields = UNSET
        elif isinstance(self.fields, FormPayloadFieldsType0):
            fields = self.fields.to_dict()
        else:
            fields = self.fields

        integrations: dict[str, Any] | None | Unset
        if isinstance(self.integrations, Unset):
            integrations = UNSET
        elif isinstance(self.integrations, FormIntegrations):
            integrations = self.integrations.to_dict()
        else:
            integrations = self.integrations

        language: None | str | Unset
        if isinstance(self.language, Unset):
            language = UNSET
        else:
            language = self.language

        metadata: dict[str, Any] | None | Unset
        if isinstance(self.metadata, Unset):
            metadata = UNSET
        elif isinstance(self.metadata, FormMetadata):
            metadata = self.metadata.to_dict()
        else:
            metadata = self.metadata

        state: None | str | Unset
        if isinstance(self.state, Unset):
            state = UNSET
        elif isinstance(self.state, FormPayloadStateType0):
            state = self.state.value
        else:
            state = self.state

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if configuration_id is not UNSET:
            field_dict["configurationId"] = configuration_id
        if fields is not UNSET:
            field_dict["fields"] = fields
        if integrations is not UNSET:
            field_dict["integrations"] = integrations
        if language is not UNSET:
            field_dict["language"] = language
        if metadata is not UNSET:
            field_dict["metadata"] = metadata
        if state is not UNSET:
            field_dict["state"] = state

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_integrations import FormIntegrations
        from ..models.form_metadata import FormMetadata
        from ..models.form_payload_fields_type_0 import FormPayloadFieldsType0

        d = dict(src_dict)

        def _parse_configuration_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        configuration_id = _parse_configuration_id(d.pop("configurationId", UNSET))

        def _parse_fields(data: object) -> FormPayloadFieldsType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                fields_type_0 = FormPayloadFieldsType0.from_dict(data)

                return fields_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FormPayloadFieldsType0 | None | Unset, data)

        fields = _parse_fields(d.pop("fields", UNSET))

        def _parse_integrations(data: object) -> FormIntegrations | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                integrations_type_1 = FormIntegrations.from_dict(data)

                return integrations_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FormIntegrations | None | Unset, data)

        integrations = _parse_integrations(d.pop("integrations", UNSET))

        def _parse_language(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        language = _parse_language(d.pop("language", UNSET))

        def _parse_metadata(data: object) -> FormMetadata | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                metadata_type_1 = FormMetadata.from_dict(data)

                return metadata_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FormMetadata | None | Unset, data)

        metadata = _parse_metadata(d.pop("metadata", UNSET))

        def _parse_state(data: object) -> FormPayloadStateType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                state_type_0 = FormPayloadStateType0(data)

                return state_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FormPayloadStateType0 | None | Unset, data)

        state = _parse_state(d.pop("state", UNSET))

        form_payload = cls(
            configuration_id=configuration_id,
            fields=fields,
            integrations=integrations,
            language=language,
            metadata=metadata,
            state=state,
        )

        return form_payload
