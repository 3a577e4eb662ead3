"""Streamed exports (`GET /v0/forms/export`, `GET /v0/workflows/items/export`): the work behind
`Trellis.export_forms` and `Trellis.export_items`, which document it, and the `Export` they give,
read row by row as the body arrives."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, Generic, TypeVar, cast

import httpx

from .errors import TrellisError

Row = TypeVar("Row")


class Export(Generic[Row]):
    """A streamed export (`Trellis.export_forms`, `Trellis.export_items`), read as it arrives: iterate
    it for its rows (a dict per JSON line; for CSV a list of cells per record, the header first), or
    `lines()` for the text as sent, each line with its line end. It is open when made (a refused query
    raised `TrellisError` already); a body cut short by the server (its last line has no line end)
    raises `TrellisError` with code `EXPORT_CUT_SHORT`. `close()` (or leaving its `with`) ends it early."""

    def __init__(self, response: httpx.Response, rows: Callable[[Iterator[str]], Iterator[Row]]) -> None:
        self.response = response
        self._rows = rows
        self._started = False

    @property
    def content_type(self) -> str:
        return str(self.response.headers.get("Content-Type", ""))

    def lines(self) -> Iterator[str]:
        """The body's lines as sent (JSON lines end in `\\n`, CSV lines in `\\r\\n`; a CSV cell may
        hold a line break, so a CSV record may span lines)."""
        if self._started:
            raise RuntimeError("an export can be read once")
        self._started = True
        try:
            pending = bytearray()
            for chunk in self.response.iter_bytes():
                start = 0
                # Split on the byte \n: it never occurs inside a UTF-8 sequence.
                while (end := chunk.find(b"\n", start)) != -1:
                    pending += chunk[start : end + 1]
                    yield pending.decode("utf-8")
                    pending.clear()
                    start = end + 1
                pending += chunk[start:]
            if pending:
                raise TrellisError(
                    self.response.status_code,
                    "EXPORT_CUT_SHORT",
                    0,
                    "the export ended part way (its last line has no line end): the server failed while sending",
                    request_id=self.response.headers.get("X-Request-Id") or None,
                )
        finally:
            self.close()

    def __iter__(self) -> Iterator[Row]:
        return self._rows(self.lines())

    def close(self) -> None:
        self.response.close()

    def __enter__(self) -> Export[Row]:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


def _json_rows(lines: Iterator[str]) -> Iterator[dict[str, Any]]:
    for line in lines:
        if line.strip():
            yield cast(dict[str, Any], json.loads(line))


def _csv_rows(lines: Iterator[str]) -> Iterator[list[str]]:
    # The lines keep their line ends, so a quoted cell holding a line break is read whole.
    yield from csv.reader(lines)


def export_forms(
    client: httpx.Client,
    *,
    format: str,
    configuration_id: str | None,
    states: Sequence[str],
    updated_since: datetime | str | None,
) -> Export[Any]:
    if isinstance(updated_since, datetime):
        updated_since = updated_since.isoformat()
    params = {
        "format": format,
        "configurationId": configuration_id,
        "states": ",".join([states] if isinstance(states, str) else states) or None,
        "updatedSince": updated_since,
    }
    return _open(client, "/v0/forms/export", format, params)


def export_items(
    client: httpx.Client,
    workflow_configuration_id: str,
    workflow_view_id: str,
    *,
    format: str,
    configuration_id: str | None,
    language: str | None,
) -> Export[Any]:
    params = {
        "workflowConfigurationId": workflow_configuration_id,
        "workflowViewId": workflow_view_id,
        "format": format,
        "configurationId": configuration_id,
        "language": language,
    }
    return _open(client, "/v0/workflows/items/export", format, params)


def _open(client: httpx.Client, path: str, format: str, params: Mapping[str, str | None]) -> Export[Any]:
    query = {key: value for key, value in params.items() if value is not None}
    response = client.send(client.build_request("GET", path, params=query), stream=True)
    if not response.is_success:
        try:
            response.read()
        finally:
            response.close()
        raise TrellisError.from_answer(response.status_code, response.content, response.headers)
    return Export(response, _csv_rows if format == "csv" else _json_rows)
