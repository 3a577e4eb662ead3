"""What `Trellis` reads of the generated operations (structural types, so any operation fits) and the
`Answer` it gives back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from trellis_api.types import Unset

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)
ItemT_co = TypeVar("ItemT_co", covariant=True)


class Parsed(Protocol[T_co]):
    """What `Trellis` reads of a generated `Response`. Read-only, hence covariant (`Response` is not): a
    `Response[ErrorEnvelope | Profile]` is a `Parsed[T | ErrorEnvelope]` with `T` the `Profile`."""

    @property
    def status_code(self) -> int: ...

    @property
    def content(self) -> bytes: ...

    @property
    def headers(self) -> Mapping[str, str]: ...

    @property
    def parsed(self) -> T_co | None: ...


class Detailed(Protocol[T_co]):
    """A generated operation's `sync_detailed`: whatever its arguments, a `Response` parsed as `T`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Parsed[T_co]: ...


class Operation(Protocol[T_co]):
    """A generated operation's module, such as `trellis_api.api.spaces.list_spaces`."""

    @property
    def sync_detailed(self) -> Detailed[T_co]: ...


class Page(Protocol[ItemT_co]):
    """What every list operation answers: `{items, nextCursor}`."""

    @property
    def items(self) -> Sequence[ItemT_co]: ...

    @property
    def next_cursor(self) -> str | None | Unset: ...


@dataclass(frozen=True)
class Answer(Generic[T]):
    """A successful answer: the generated model (`parsed`), the status and the headers (any case)."""

    parsed: T
    status: int
    #: `httpx.Headers`: any case finds a header.
    headers: Mapping[str, str]

    @property
    def etag(self) -> str | None:
        """The `ETag`, to send back as `if_match` (a conditional update) or `if_none_match`."""
        return self.headers.get("ETag")
