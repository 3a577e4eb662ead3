from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.workflow_configuration import WorkflowConfiguration


T = TypeVar("T", bound="WorkflowWrapper")


@_attrs_define
class WorkflowWrapper:
    """`{id?, config}`.

    Attributes:
        config (WorkflowConfiguration): Contract 1.0.0. Labels and descriptions hold `$.` paths into the active language
            bundle of `translations` (e.g. `$.workbaskets.intake.label`); every path must resolve to a string under
            `defaultLanguage`. Ids are UUID v4, unique across workbaskets, transitions and views.
        id (None | str | Unset):
    """

    config: WorkflowConfiguration
    id: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "config": config,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.workflow_configuration import WorkflowConfiguration

        d = dict(src_dict)
        config = WorkflowConfiguration.from_dict(d.pop("config"))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        workflow_wrapper = cls(
            config=config,
            id=id,
        )

        return workflow_wrapper
