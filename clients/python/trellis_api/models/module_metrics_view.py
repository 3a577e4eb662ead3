from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.module_metrics_view_failures import ModuleMetricsViewFailures


T = TypeVar("T", bound="ModuleMetricsView")


@_attrs_define
class ModuleMetricsView:
    """One module's call metrics since the server started.

    Attributes:
        busy (int): Calls refused at once because the module or its space was at a bound.
        calls (int): Invocations that ran, successful or not.
        failures (ModuleMetricsViewFailures): Failures by kind: `deadline`, `memoryCap`, `trap`, `moduleError`,
            `invalidAnswer`, `host`.
        memory_high_water_bytes (int): The most linear memory one instance reached, in bytes.
        module_id (str):
        p_50_micros (int | None): Median call duration in microseconds (a bucket's upper bound, ~6 %); null before the
            first call.
        p_99_micros (int | None): 99th percentile call duration in microseconds, likewise.
    """

    busy: int
    calls: int
    failures: ModuleMetricsViewFailures
    memory_high_water_bytes: int
    module_id: str
    p_50_micros: int | None
    p_99_micros: int | None
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        busy = self.busy

        calls = self.calls

        failures = self.failures.to_dict()

        memory_high_water_bytes = self.memory_high_water_bytes

        module_id = self.module_id

        p_50_micros: int | None
        p_50_micros = self.p_50_micros

        p_99_micros: int | None
        p_99_micros = self.p_99_micros

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "busy": busy,
                "calls": calls,
                "failures": failures,
                "memoryHighWaterBytes": memory_high_water_bytes,
                "moduleId": module_id,
                "p50Micros": p_50_micros,
                "p99Micros": p_99_micros,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.module_metrics_view_failures import ModuleMetricsViewFailures

        d = dict(src_dict)
        busy = d.pop("busy")

        calls = d.pop("calls")

        failures = ModuleMetricsViewFailures.from_dict(d.pop("failures"))

        memory_high_water_bytes = d.pop("memoryHighWaterBytes")

        module_id = d.pop("moduleId")

        def _parse_p_50_micros(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        p_50_micros = _parse_p_50_micros(d.pop("p50Micros"))

        def _parse_p_99_micros(data: object) -> int | None:
            if data is None:
                return data
            return cast(int | None, data)

        p_99_micros = _parse_p_99_micros(d.pop("p99Micros"))

        module_metrics_view = cls(
            busy=busy,
            calls=calls,
            failures=failures,
            memory_high_water_bytes=memory_high_water_bytes,
            module_id=module_id,
            p_50_micros=p_50_micros,
            p_99_micros=p_99_micros,
        )

        module_metrics_view.additional_properties = d
        return module_metrics_view

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
