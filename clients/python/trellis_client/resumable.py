"""Resumable uploads (tus 1.0.0, `/v0/media/uploads`): the work behind `Trellis.create_upload`,
`upload_offset`, `append_to_upload`, `terminate_upload` and `upload_resumable`, which document it."""

from __future__ import annotations

import base64
import io
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, BinaryIO

import httpx

from trellis_api.api.media import append_upload, upload_status
from trellis_api.api.media import create_upload as create_upload_operation
from trellis_api.api.media import terminate_upload as terminate_upload_operation
from trellis_api.models import (
    AppendUploadTusResumable,
    CreateUploadTusResumable,
    TerminateUploadTusResumable,
    UploadStatusTusResumable,
)
from trellis_api.types import File

from .errors import TrellisError

if TYPE_CHECKING:
    # Only for the annotations: client.py imports this module.
    from .client import Trellis


@dataclass
class ResumableUpload:
    """A resumable (tus) upload as the client knows it: its id, declared length and the offset the
    server acknowledged. Once `offset == length` it is finished and can be used once, by its id, as
    an attachment (`Trellis.attach_uploads`) or an asset's bytes (`Trellis.upload_asset`)."""

    upload_id: str
    length: int
    offset: int = 0
    #: `Upload-Expires` (an HTTP date): unused, it is removed then.
    expires: str | None = None

    @property
    def finished(self) -> bool:
        return self.offset >= self.length


def _upload_metadata(pairs: Mapping[str, str | None]) -> str:
    """tus `Upload-Metadata`: `key base64(value)` pairs joined by commas."""
    return ",".join(
        f"{key} {base64.b64encode(value.encode()).decode()}" for key, value in pairs.items() if value is not None
    )


def _retryable(error: TrellisError) -> bool:
    """Whether a failed tus request may succeed when tried again after reading the offset: another
    writer held the upload (409, 423), the server was busy (429, 503) or failed (5xx)."""
    return error.status in (409, 423, 429) or error.status >= 500


def create_upload(
    trellis: Trellis, length: int, *, filename: str | None = None, content_type: str | None = None, first: bytes = b""
) -> ResumableUpload:
    metadata = _upload_metadata({"filename": filename, "contentType": content_type})
    answer = trellis.call_detailed(
        create_upload_operation,
        tus_resumable=CreateUploadTusResumable.VALUE_0,
        upload_length=length,
        **({"upload_metadata": metadata} if metadata else {}),
        **({"body": File(payload=io.BytesIO(first))} if first else {}),
    )
    created = answer.parsed
    return ResumableUpload(created.upload_id, created.length, created.offset, answer.headers.get("Upload-Expires"))


def upload_offset(trellis: Trellis, upload: ResumableUpload | str) -> ResumableUpload:
    upload_id = upload.upload_id if isinstance(upload, ResumableUpload) else upload
    answer = trellis.call_detailed(upload_status, upload_id, tus_resumable=UploadStatusTusResumable.VALUE_0)
    return ResumableUpload(
        upload_id,
        int(answer.headers["Upload-Length"]),
        int(answer.headers["Upload-Offset"]),
        answer.headers.get("Upload-Expires"),
    )


def append_to_upload(trellis: Trellis, upload: ResumableUpload, data: bytes) -> ResumableUpload:
    answer = trellis.call_detailed(
        append_upload,
        upload.upload_id,
        body=File(payload=io.BytesIO(data)),
        tus_resumable=AppendUploadTusResumable.VALUE_0,
        upload_offset=upload.offset,
    )
    upload.offset = int(answer.headers["Upload-Offset"])
    upload.expires = answer.headers.get("Upload-Expires", upload.expires)
    return upload


def terminate_upload(trellis: Trellis, upload: ResumableUpload | str) -> None:
    upload_id = upload.upload_id if isinstance(upload, ResumableUpload) else upload
    trellis.call(terminate_upload_operation, upload_id, tus_resumable=TerminateUploadTusResumable.VALUE_0)


def upload_resumable(
    trellis: Trellis,
    content: bytes | BinaryIO,
    *,
    filename: str | None = None,
    content_type: str | None = None,
    upload: ResumableUpload | str | None = None,
    chunk_size: int = 8 * 1024 * 1024,
    attempts: int = 5,
    retry: float = 1.0,
    on_progress: Callable[[ResumableUpload], None] | None = None,
) -> ResumableUpload:
    # Each step goes through the `Trellis` methods, so a subclass that overrides one is used here too.
    if isinstance(content, bytes):
        length = len(content)
        view = memoryview(content)

        def read(offset: int, size: int) -> bytes:
            return bytes(view[offset : offset + size])

    else:
        source = content
        start = source.tell()
        length = source.seek(0, io.SEEK_END) - start

        def read(offset: int, size: int) -> bytes:
            source.seek(start + offset)
            return source.read(size)

    state: ResumableUpload | None = None
    if upload is None:
        state = trellis.create_upload(length, filename=filename, content_type=content_type)
        upload_id = state.upload_id
    else:
        upload_id = upload.upload_id if isinstance(upload, ResumableUpload) else upload
    failures, delay = 0, retry
    while True:
        try:
            if state is None:
                state = trellis.upload_offset(upload_id)
                if state.length != length:
                    raise ValueError(f"upload {upload_id} is {state.length} bytes long, the content {length}")
            if state.finished:
                return state
            trellis.append_to_upload(state, read(state.offset, chunk_size))
            failures, delay = 0, retry
            if on_progress is not None:
                on_progress(state)
        except (httpx.TransportError, TrellisError) as error:
            if isinstance(error, TrellisError) and not _retryable(error):
                raise
            failures += 1
            if failures >= attempts:
                raise
            wait = error.retry_after if isinstance(error, TrellisError) and error.retry_after else delay
            time.sleep(wait)
            delay = min(delay * 2, 30.0)
            state = None  # ask the server where it stands
