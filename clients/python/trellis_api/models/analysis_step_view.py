from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.analysis_step_view_state import AnalysisStepViewState

if TYPE_CHECKING:
    from ..models.finding_view import FindingView


T = TypeVar("T", bound="AnalysisStepView")


@_attrs_define
class AnalysisStepView:
    """One analysis step's part in an asset's analysis.

    Attributes:
        error (None | str): The step's failure, when it failed.
        millis (int): Wall-clock milliseconds the step took.
        module (str): The analysis-step module's id.
        sentences (list[FindingView]): The step's sentences of the description, in order.
        state (AnalysisStepViewState): `SUCCEEDED` or `FAILED`.
        tags (list[FindingView]):
        text (FindingView | None):
        transcript (FindingView | None):
        version (str): Its version.
    """

    error: None | str
    millis: int
    module: str
    sentences: list[FindingView]
    state: AnalysisStepViewState
    tags: list[FindingView]
    text: FindingView | None
    transcript: FindingView | None
    version: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.finding_view import FindingView

        error: None | str
        error = self.error

        millis = self.millis

        module = self.module

        sentences = []
        for sentences_item_data in self.sentences:
            sentences_item = sentences_item_data.to_dict()
            sentences.append(sentences_item)

        state = self.state.value

        tags = []
        for tags_item_data in self.tags:
            tags_item = tags_item_data.to_dict()
            tags.append(tags_item)

        text: dict[str, Any] | None
        if isinstance(self.text, FindingView):
            text = self.text.to_dict()
        else:
            text = self.text

        transcript: dict[str, Any] | None
        if isinstance(self.transcript, FindingView):
            transcript = self.transcript.to_dict()
        else:
            transcript = self.transcript

        version = self.version

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "error": error,
                "millis": millis,
                "module": module,
                "sentences": sentences,
                "state": state,
                "tags": tags,
                "text": text,
                "transcript": transcript,
                "version": version,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.finding_view import FindingView

        d = dict(src_dict)

        def _parse_error(data: object) -> None | str:
            if data is None:
                return data
            return cast(None | str, data)

        error = _parse_error(d.pop("error"))

        millis = d.pop("millis")

        module = d.pop("module")

        sentences = []
        _sentences = d.pop("sentences")
        for sentences_item_data in _sentences:
            sentences_item = FindingView.from_dict(sentences_item_data)

            sentences.append(sentences_item)

        state = AnalysisStepViewState(d.pop("state"))

        tags = []
        _tags = d.pop("tags")
        for tags_item_data in _tags:
            tags_item = FindingView.from_dict(tags_item_data)

            tags.append(tags_item)

        def _parse_text(data: object) -> FindingView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                text_type_1 = FindingView.from_dict(data)

                return text_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FindingView | None, data)

        text = _parse_text(d.pop("text"))

        def _parse_transcript(data: object) -> FindingView | None:
            if data is None:
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                transcript_type_1 = FindingView.from_dict(data)

                return transcript_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(FindingView | None, data)

        transcript = _parse_transcript(d.pop("transcript"))

        version = d.pop("version")

        analysis_step_view = cls(
            error=error,
            millis=millis,
            module=module,
            sentences=sentences,
            state=state,
            tags=tags,
            text=text,
            transcript=transcript,
            version=version,
        )

        analysis_step_view.additional_properties = d
        return analysis_step_view

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
