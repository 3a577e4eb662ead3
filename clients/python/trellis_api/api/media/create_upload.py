from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.upload_created import UploadCreated
from ...types import Response


def _get_kwargs() -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/media/uploads",
    }

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
) -> Response[ErrorEnvelope | UploadCreated]:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are not listed as parameters: a tus client, not a generated one, sends them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | UploadCreated]
    """

    kwargs = _get_kwargs()

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | UploadCreated | None:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are not listed as parameters: a tus client, not a generated one, sends them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | UploadCreated
    """

    return sync_detailed(
        client=client,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | UploadCreated]:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are not listed as parameters: a tus client, not a generated one, sends them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | UploadCreated]
    """

    kwargs = _get_kwargs()

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | UploadCreated | None:
    """Creates a resumable upload (tus creation): `Tus-Resumable: 1.0.0`, `Upload-Length` (bytes, at
    least 1) and `Upload-Metadata` (`filename` and `contentType`, base64). With `Content-Type:
    application/offset+octet-stream` the body holds its first bytes (creation-with-upload). The tus
    headers are not listed as parameters: a tus client, not a generated one, sends them.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | UploadCreated
    """

    return (
        await asyncio_detailed(
            client=client,
        )
    ).parsed
