from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define

if TYPE_CHECKING:
    from ..models.form_payload import FormPayload


T = TypeVar("T", bound="PayloadWrapper")


@_attrs_define
class PayloadWrapper:
    """`{payload: {configurationId, language, state?, fields, metadata?, integrations?}}`.

    Attributes:
        payload (FormPayload): An instance's payload. The configuration decides the rest: which field ids `fields` takes
            and
            what each answer must be, which `metadata` and `integrations` members it enables. A member given
            as `null` counts as left out (in a patch, a `metadata` or `integrations` member set to `null` is removed).
            An item PATCH through a workflow view takes `fields` and `metadata` only.
    """

    payload: FormPayload

    def to_dict(self) -> dict[str, Any]:
        payload = self.payload.to_dict()

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "payload": payload,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.form_payload import FormPayload

        d = dict(src_dict)
        payload = FormPayload.from_dict(d.pop("payload"))

        payload_wrapper = cls(
            payload=payload,
        )

        return payload_wrapper
