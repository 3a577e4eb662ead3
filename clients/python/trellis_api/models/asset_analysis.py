from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.asset_analysis_state import AssetAnalysisState

if TYPE_CHECKING:
    from ..models.analysis_step_view import AnalysisStepView


T = TypeVar("T", bound="AssetAnalysis")


@_attrs_define
class AssetAnalysis:
    """What the background analysis found. Its `description` is composed by the service from what the
    analysis steps found, not written by a person.

        Attributes:
            description (None | str):
            error (None | str): Why the analysis failed, when it did: each failed step by its module id, with its message.
            state (AssetAnalysisState): `QUEUED`, `RUNNING`, `SUCCEEDED` or `FAILED`.
            steps (list[AnalysisStepView]): Provenance: every step that ran, in order, with what it found and the model
                behind each
                finding. `tags`, `description`, `transcript` and `text` above are composed from these.
            tags (list[str]):
            text (None | str): Printed English text read in the asset's pictures (or a video's frames), lines joined by
                `\\n`;
                null when none was found. The step in `steps` that read it names the model.
            transcript (None | str):
    """

    description: None | str
    error: None | str
    state: AssetAnalysisState
    steps: list[AnalysisStepView]
    tags: list[str]
    text: None | str
    transcript: None | str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description: None | str
        description = self.description

        error: None | str
        error = self.error

        state = self.state.value

        steps = []
        for steps_item_data in self.steps:
            steps_item = steps_item_data.to_dict()
            steps.append(steps_item)

        tags = self.tags

        text: None | str
        text = self.text

        transcript: None | str
        transcript = self.transcript

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "error": error,
                "state": state,
                "steps": steps,
                "tags": tags,
                "text": text,
                "transcript": transcript,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.analysis_step_view import AnalysisStepView

        d = dict(src_dict)

        def _parse_description(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        description = _parse_description(d.pop("description"))

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        state = AssetAnalysisState(d.pop("state"))

        steps = []
        _steps = d.pop("steps")
        for steps_item_data in _steps:
            steps_item = AnalysisStepView.from_dict(steps_item_data)

            steps.append(steps_item)

        tags = cast(list[str], d.pop("tags"))

        def _parse_text(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        text = _parse_text(d.pop("text"))

        def _parse_transcript(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        transcript = _parse_transcript(d.pop("transcript"))

        asset_analysis = cls(
            description=description,
            error=error,
            state=state,
            steps=steps,
            tags=tags,
            text=text,
            transcript=transcript,
        )

        asset_analysis.additional_properties = d
        return asset_analysis

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
