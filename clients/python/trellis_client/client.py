"""`Trellis`: a client of one server, over the generated `trellis_api`. Uploads, resumable uploads,
exports and live updates are methods here, each doing its work in its own module."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any, BinaryIO, Literal, TypeVar, cast, overload

import httpx

from trellis_api.api.auth import complete_signup, start_signup, verify_signup_pin
from trellis_api.api.auth import login as login_operation
from trellis_api.api.auth import logout as logout_operation
from trellis_api.client import AuthenticatedClient, Client
from trellis_api.models import (
    AssetUploaded,
    AvatarUploaded,
    CompleteSignup,
    ErrorEnvelope,
    Login,
    SessionOpened,
    StartSignup,
    Uploaded,
    VerifySignupPin,
)
from trellis_api.types import Unset

from . import exports, resumable
from .answers import Answer, Detailed, Operation, Page
from .errors import TrellisError
from .exports import Export
from .live import LiveStream
from .resumable import ResumableUpload
from .uploads import AttachmentFile, UploadFile

T = TypeVar("T")
M = TypeVar("M")
ItemT = TypeVar("ItemT")


class Trellis:
    """A client of one server: `client` is the generated client carrying the license key and, once
    known, the session; `call` runs a generated operation and raises `TrellisError` on failure."""

    def __init__(
        self,
        base_url: str,
        license_key: str,
        token: str | None = None,
        *,
        timeout: float = 30.0,
        httpx_args: Mapping[str, Any] | None = None,
    ) -> None:
        """`httpx_args` go to the `httpx.Client` (a `transport`, `verify`, ...)."""
        self.base_url = base_url.rstrip("/")
        self.license_key = license_key
        self._timeout = httpx.Timeout(timeout)
        self._httpx_args = dict(httpx_args or {})
        # The last answer each thread received, for an error body the generated parser cannot read.
        self._answers = threading.local()
        self._client: Client | AuthenticatedClient | None = None
        self._token: str | None = None
        self.token = token

    @property
    def token(self) -> str | None:
        """The session token the next requests carry, if any; `sign_up` and `login` set it."""
        return self._token

    @token.setter
    def token(self, value: str | None) -> None:
        self.close()
        self._token = value

    @property
    def client(self) -> Client | AuthenticatedClient:
        """The generated client to pass to `trellis_api` operations (`AuthenticatedClient` once signed in)."""
        if self._client is None:
            headers = {"X-License-Key": self.license_key}
            hooks = dict(self._httpx_args.get("event_hooks", {}))
            hooks["response"] = [*hooks.get("response", []), self._remember]
            args = {**self._httpx_args, "event_hooks": hooks}
            if self._token:
                self._client = AuthenticatedClient(
                    base_url=self.base_url, token=self._token, headers=headers, timeout=self._timeout, httpx_args=args
                )
            else:
                self._client = Client(base_url=self.base_url, headers=headers, timeout=self._timeout, httpx_args=args)
        return self._client

    def _remember(self, response: httpx.Response) -> None:
        self._answers.last = response

    def close(self) -> None:
        """Closes the connections of the current client."""
        if self._client is not None:
            self._client.get_httpx_client().close()
            self._client = None

    def __enter__(self) -> Trellis:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # --- generated operations ---

    def call_detailed(
        self, operation: Operation[T | ErrorEnvelope] | Detailed[T | ErrorEnvelope], /, *args: Any, **kwargs: Any
    ) -> Answer[T]:
        """Runs a generated operation (a module such as `trellis_api.api.users.get_me`, or its
        `sync_detailed`) with this client: the parsed answer with its status and headers (`etag`).
        A non-2xx answer raises `TrellisError`, a 304 to `if_none_match` too (`status` 304).
        `if_match=None` (an answer's `etag` when it had none) sends no precondition."""
        run = cast(Detailed[T | ErrorEnvelope], getattr(operation, "sync_detailed", operation))
        for precondition in ("if_match", "if_none_match"):
            if precondition in kwargs and kwargs[precondition] is None:
                del kwargs[precondition]  # an answer without an ETag: no precondition
        self._answers.last = None
        try:
            response = run(*args, client=self.client, **kwargs)
        except (KeyError, TypeError, ValueError) as error:
            # The generated parser reads a documented status's body as documented: a proxy's 502 page, say,
            # is no error envelope. Once an answer came, report it as it was.
            last: httpx.Response | None = self._answers.last
            if last is None:
                raise
            last.read()
            if not last.is_success:
                raise TrellisError.from_answer(last.status_code, last.content, last.headers) from error
            message = f"the answer does not read as the document says: {error!r}"
            raise TrellisError(last.status_code, "UNREADABLE_ANSWER", 0, message) from error
        finally:
            self._answers.last = None  # a download's bytes are not kept past the call
        status = int(response.status_code)
        if not 200 <= status < 300:
            raise TrellisError.from_answer(status, response.content, response.headers)
        # A 2xx is never parsed as the error envelope: only the error statuses are.
        return Answer(cast(T, response.parsed), status, httpx.Headers(response.headers))

    def call(
        self, operation: Operation[T | ErrorEnvelope] | Detailed[T | ErrorEnvelope], /, *args: Any, **kwargs: Any
    ) -> T:
        """Runs a generated operation with this client and returns its parsed answer, the generated
        model (`trellis.call(get_me).handle`); a failure raises `TrellisError`. Conditional updates
        take the `ETag` that `call_detailed` gives: `trellis.call(update_me, body=..., if_match=etag)`."""
        return self.call_detailed(operation, *args, **kwargs).parsed

    def request(self, method: str, path: str, *, if_match: str | None = None, **kwargs: Any) -> httpx.Response:
        """A request by path with httpx's arguments (`json`, `params`, `files`, `data`, `headers`),
        for what the generated operations do not cover; a failure raises `TrellisError`."""
        if if_match is not None:
            kwargs["headers"] = {**kwargs.get("headers", {}), "If-Match": if_match}
        response = self.client.get_httpx_client().request(method, path, **kwargs)
        if not response.is_success:
            raise TrellisError.from_answer(response.status_code, response.content, response.headers)
        return response

    def _model(self, parse: Callable[[Mapping[str, Any]], M], method: str, path: str, **kwargs: Any) -> M:
        return parse(self.request(method, path, **kwargs).json())

    # --- sign-up and login ---

    def sign_up(
        self, details: StartSignup | Mapping[str, str], password: str, get_pin: Callable[[str], str]
    ) -> SessionOpened:
        """Signs a new user up (`details`: a `StartSignup`, or a dict with email, handle, fullName,
        displayName): starts the sign-up, asks `get_pin(email)` for the PIN the server mailed, verifies
        it and sets the password. The client carries the new session from then on."""
        start = details if isinstance(details, StartSignup) else StartSignup.from_dict(details)
        token = self.call(start_signup, body=start).signup_token
        pin = get_pin(start.email)
        self.call(verify_signup_pin, body=VerifySignupPin(pin=pin, signup_token=token))
        session = self.call(complete_signup, body=CompleteSignup(password=password, signup_token=token))
        self.token = session.session_token
        return session

    def login(self, login: str, password: str) -> SessionOpened:
        """Logs in with the handle or the e-mail; the client carries the session from then on."""
        session = self.call(login_operation, body=Login(login=login, password=password))
        self.token = session.session_token
        return session

    def logout(self) -> None:
        """Ends the session on the server (its live streams close within seconds) and forgets it."""
        self.call(logout_operation)
        self.token = None

    # --- paging ---

    def paginate(
        self,
        operation: Operation[Page[ItemT] | ErrorEnvelope] | Detailed[Page[ItemT] | ErrorEnvelope],
        /,
        *args: Any,
        **kwargs: Any,
    ) -> Iterator[ItemT]:
        """Every item of a list operation, page after page, following `nextCursor`:
        `for space in trellis.paginate(list_spaces): ...`. A failed page raises `TrellisError`."""
        cursor: str | None = None
        while True:
            page = self.call(operation, *args, **kwargs, **({"cursor": cursor} if cursor else {}))
            if page is None:
                raise TrellisError(0, "UNDOCUMENTED_ANSWER", 0, "a list operation answered no page")
            yield from page.items
            next_cursor = page.next_cursor
            if isinstance(next_cursor, Unset) or not next_cursor:
                return
            cursor = next_cursor

    # --- uploads ---

    def upload_attachments(
        self, form_id: str, files: Sequence[AttachmentFile], *, params: Mapping[str, str] | None = None
    ) -> Uploaded:
        """Uploads files to file fields of a form instance, as one multipart request (all or nothing):
        `fieldIds` and `files` parts paired by position. `params` may name the workflow view
        (`workflowConfigurationId`, `workflowViewId`) the instance is reached through."""
        return self._model(
            Uploaded.from_dict,
            "POST",
            f"/v0/media/forms/{form_id}/attachments",
            params=params,
            data={"fieldIds": [f.field_id for f in files]},
            files=[("files", (f.name, f.content, f.content_type)) for f in files],
        )

    def attach_uploads(
        self, form_id: str, uploads: Sequence[tuple[str, str]], *, params: Mapping[str, str] | None = None
    ) -> Uploaded:
        """Uses finished resumable uploads as attachments: `(field_id, upload_id)` pairs, all or
        nothing, as `upload_attachments` (each upload is used up)."""
        body = {"fieldIds": [f for f, _ in uploads], "uploadIds": [u for _, u in uploads]}
        return self._model(
            Uploaded.from_dict, "POST", f"/v0/media/forms/{form_id}/attachments", params=params, json=body
        )

    def upload_asset(self, space_id: str, asset_id: str, upload: UploadFile | ResumableUpload) -> AssetUploaded:
        """Uploads the bytes of an announced asset (`POST /v0/spaces/{spaceId}/assets` announced it): an
        `UploadFile` as multipart, or a finished `ResumableUpload` by its id (`{uploadId}`, used up)."""
        path = f"/v0/media/spaces/{space_id}/assets/{asset_id}"
        if isinstance(upload, ResumableUpload):
            return self._model(AssetUploaded.from_dict, "POST", path, json={"uploadId": upload.upload_id})
        files = [("file", (upload.name, upload.content, upload.content_type))]
        return self._model(AssetUploaded.from_dict, "POST", path, files=files)

    def upload_avatar(self, upload: UploadFile) -> AvatarUploaded:
        """Sets the caller's avatar (PNG, JPEG, WebP or GIF)."""
        files = [("file", (upload.name, upload.content, upload.content_type))]
        return self._model(AvatarUploaded.from_dict, "POST", "/v0/media/users/me/avatar", files=files)

    # --- resumable uploads (tus 1.0.0; the work is in resumable.py) ---

    def create_upload(
        self, length: int, *, filename: str | None = None, content_type: str | None = None, first: bytes = b""
    ) -> ResumableUpload:
        """Creates a resumable upload of `length` bytes (`POST /v0/media/uploads`); `first`, if given,
        are its first bytes (creation-with-upload)."""
        return resumable.create_upload(self, length, filename=filename, content_type=content_type, first=first)

    def upload_offset(self, upload: ResumableUpload | str) -> ResumableUpload:
        """Where an upload stands (`HEAD`): the bytes the server holds, to resume from."""
        return resumable.upload_offset(self, upload)

    def append_to_upload(self, upload: ResumableUpload, data: bytes) -> ResumableUpload:
        """Sends `data` at `upload.offset` (one `PATCH`) and moves `upload.offset` on as the server
        acknowledged; a 409 means another writer moved it: read `upload_offset` and go on from there."""
        return resumable.append_to_upload(self, upload, data)

    def terminate_upload(self, upload: ResumableUpload | str) -> None:
        """Removes an upload that will not be used (`DELETE`)."""
        resumable.terminate_upload(self, upload)

    def upload_resumable(
        self,
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
        """Sends `content` (bytes, or a seekable binary file from its current position) as a resumable
        upload, one `PATCH` per `chunk_size` bytes, and returns it finished. Without `upload` it creates
        one; with one (or its id, from an earlier run that was cut off) it asks the server where it
        stands and sends the rest. A dropped connection, a timeout or a 409/423/429/5xx is retried
        from the offset `HEAD` reports, after `retry` seconds doubled per failure (or `Retry-After`),
        up to `attempts` failures in a row; other refusals raise `TrellisError` at once.
        `on_progress(upload)` is called after each acknowledged `PATCH`."""
        return resumable.upload_resumable(
            self,
            content,
            filename=filename,
            content_type=content_type,
            upload=upload,
            chunk_size=chunk_size,
            attempts=attempts,
            retry=retry,
            on_progress=on_progress,
        )

    # --- exports (the work is in exports.py) ---

    @overload
    def export_forms(
        self,
        *,
        format: Literal["jsonl"] = "jsonl",
        configuration_id: str | None = None,
        states: Sequence[str] = (),
        updated_since: datetime | str | None = None,
    ) -> Export[dict[str, Any]]: ...

    @overload
    def export_forms(
        self,
        *,
        format: Literal["csv"],
        configuration_id: str | None = None,
        states: Sequence[str] = (),
        updated_since: datetime | str | None = None,
    ) -> Export[list[str]]: ...

    def export_forms(
        self,
        *,
        format: Literal["jsonl", "csv"] = "jsonl",
        configuration_id: str | None = None,
        states: Sequence[str] = (),
        updated_since: datetime | str | None = None,
    ) -> Export[dict[str, Any]] | Export[list[str]]:
        """Streams every form instance the caller may read (`GET /v0/forms/export`), each as
        `GET /v0/forms/{formId}` answers it: `jsonl` gives a dict per instance, `csv` (which needs a
        `configuration_id`) a list of cells per row, the header first. `states` filters
        (`["DRAFT", "SUBMITTED"]`), `updated_since` is an aware datetime or RFC 3339 text.
        `with trellis.export_forms() as rows: for row in rows: ...`"""
        client = self.client.get_httpx_client()
        return exports.export_forms(
            client, format=format, configuration_id=configuration_id, states=states, updated_since=updated_since
        )

    @overload
    def export_items(
        self,
        workflow_configuration_id: str,
        workflow_view_id: str,
        *,
        format: Literal["jsonl"] = "jsonl",
        configuration_id: str | None = None,
        language: str | None = None,
    ) -> Export[dict[str, Any]]: ...

    @overload
    def export_items(
        self,
        workflow_configuration_id: str,
        workflow_view_id: str,
        *,
        format: Literal["csv"],
        configuration_id: str | None = None,
        language: str | None = None,
    ) -> Export[list[str]]: ...

    def export_items(
        self,
        workflow_configuration_id: str,
        workflow_view_id: str,
        *,
        format: Literal["jsonl", "csv"] = "jsonl",
        configuration_id: str | None = None,
        language: str | None = None,
    ) -> Export[dict[str, Any]] | Export[list[str]]:
        """Streams the items of a workflow view the caller holds (`GET /v0/workflows/items/export`),
        each as `GET /v0/workflows/items/{itemId}` answers it through that view: `jsonl` gives a dict
        per item, `csv` (which needs the `configuration_id` of the form whose fields are columns) a
        list of cells per row, the header first."""
        client = self.client.get_httpx_client()
        return exports.export_items(
            client,
            workflow_configuration_id,
            workflow_view_id,
            format=format,
            configuration_id=configuration_id,
            language=language,
        )

    # --- live updates ---

    def events(self, last_event_id: str | None = None, *, retry: float = 1.0) -> LiveStream:
        """Opens the signed-in user's live updates (`GET /v0/events` with the client's headers) and
        returns once the stream is open: a `LiveStream`, an iterator of `LiveEvent`s.
        `with trellis.events() as events: for event in events: ...`. See `LiveStream`."""
        return LiveStream(self, last_event_id, retry)

    # --- module routes ---

    def call_module(
        self, space_id: str, module_id: str, method: str, path: str, body: Any = None, *, if_match: str | None = None
    ) -> Any:
        """Calls a module's own route, `/v0/spaces/{spaceId}/modules/{moduleId}/{path}`, with any
        method and a JSON body; the module defines the path and the answer (its JSON, or None)."""
        url = f"/v0/spaces/{space_id}/modules/{module_id}/{path.lstrip('/')}"
        response = self.request(method, url, if_match=if_match, **({"json": body} if body is not None else {}))
        return response.json() if response.content else None
