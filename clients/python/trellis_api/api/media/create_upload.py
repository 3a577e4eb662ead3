from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_upload_tus_resumable import CreateUploadTusResumable
from ...models.error_envelope import ErrorEnvelope
from ...models.upload_created import UploadCreated
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    *,
    body: File | Unset = UNSET,
    tus_resumable: CreateUploadTusResumable,
    upload_length: int,
    upload_metadata: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Tus-Resumable"] = str(tus_resumable)

    headers["Upload-Length"] = str(upload_length)

    if not isinstance(upload_metadata, Unset):
        headers["Upload-Metadata"] = upload_metadata

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/media/uploads",
    }

    if not isinstance(body, Unset):
        _kwargs["content"] = body.payload
    headers["Content-Type"] = "application/offset+octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | UploadCreated | None:
    if response.status_code == 201:
        response_201 = UploadCreated.from_dict(response.json())

        return response_201

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 412:
        response_412 = ErrorEnvelope.from_dict(response.json())

        return response_412

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 429:
        response_429 = ErrorEnvelope.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = ErrorEnvelope.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = ErrorEnvelope.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[ErrorEnvelope | UploadCreated]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    tus_resumable: CreateUploadTusResumable,
    upload_length: int,
    upload_metadata: str | Unset = UNSET,
) -> Response[ErrorEnvelope | UploadCreated]:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are written into the document by `openapi/tus.rs`, so a generated client can send them.

    Args:
        tus_resumable (CreateUploadTusResumable):
        upload_length (int):
        upload_metadata (str | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | UploadCreated]
    """

    kwargs = _get_kwargs(
        body=body,
        tus_resumable=tus_resumable,
        upload_length=upload_length,
        upload_metadata=upload_metadata,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    tus_resumable: CreateUploadTusResumable,
    upload_length: int,
    upload_metadata: str | Unset = UNSET,
) -> ErrorEnvelope | UploadCreated | None:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are written into the document by `openapi/tus.rs`, so a generated client can send them.

    Args:
        tus_resumable (CreateUploadTusResumable):
        upload_length (int):
        upload_metadata (str | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | UploadCreated
    """

    return sync_detailed(
        client=client,
        body=body,
        tus_resumable=tus_resumable,
        upload_length=upload_length,
        upload_metadata=upload_metadata,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    tus_resumable: CreateUploadTusResumable,
    upload_length: int,
    upload_metadata: str | Unset = UNSET,
) -> Response[ErrorEnvelope | UploadCreated]:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are written into the document by `openapi/tus.rs`, so a generated client can send them.

    Args:
        tus_resumable (CreateUploadTusResumable):
        upload_length (int):
        upload_metadata (str | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | UploadCreated]
    """

    kwargs = _get_kwargs(
        body=body,
        tus_resumable=tus_resumable,
        upload_length=upload_length,
        upload_metadata=upload_metadata,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: File | Unset = UNSET,
    tus_resumable: CreateUploadTusResumable,
    upload_length: int,
    upload_metadata: str | Unset = UNSET,
) -> ErrorEnvelope | UploadCreated | None:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are written into the document by `openapi/tus.rs`, so a generated client can send them.

    Args:
        tus_resumable (CreateUploadTusResumable):
        upload_length (int):
        upload_metadata (str | Unset):
        body (File | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | UploadCreated
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            tus_resumable=tus_resumable,
            upload_length=upload_length,
            upload_metadata=upload_metadata,
        )
    ).parsed
