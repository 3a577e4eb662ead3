from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.append_upload_tus_resumable import AppendUploadTusResumable
from ...models.error_envelope import ErrorEnvelope
from ...types import File, Response


def _get_kwargs(
    upload_id: str,
    *,
    body: File,
    tus_resumable: AppendUploadTusResumable,
    upload_offset: int,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Tus-Resumable"] = str(tus_resumable)

    headers["Upload-Offset"] = str(upload_offset)

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v0/media/uploads/{upload_id}".format(
            upload_id=quote(str(upload_id), safe=""),
        ),
    }

    _kwargs["content"] = body.payload
    headers["Content-Type"] = "application/offset+octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorEnvelope | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 400:
        response_400 = ErrorEnvelope.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = ErrorEnvelope.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = ErrorEnvelope.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 410:
        response_410 = ErrorEnvelope.from_dict(response.json())

        return response_410

    if response.status_code == 412:
        response_412 = ErrorEnvelope.from_dict(response.json())

        return response_412

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

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
) -> Response[Any | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    tus_resumable: AppendUploadTusResumable,
    upload_offset: int,
) -> Response[Any | ErrorEnvelope]:
    """Appends the body at `Upload-Offset`, which must be where the upload stands (`Tus-Resumable:
    1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (AppendUploadTusResumable):
        upload_offset (int):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        body=body,
        tus_resumable=tus_resumable,
        upload_offset=upload_offset,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    tus_resumable: AppendUploadTusResumable,
    upload_offset: int,
) -> Any | ErrorEnvelope | None:
    """Appends the body at `Upload-Offset`, which must be where the upload stands (`Tus-Resumable:
    1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (AppendUploadTusResumable):
        upload_offset (int):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope
    """

    return sync_detailed(
        upload_id=upload_id,
        client=client,
        body=body,
        tus_resumable=tus_resumable,
        upload_offset=upload_offset,
    ).parsed


async def asyncio_detailed(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    tus_resumable: AppendUploadTusResumable,
    upload_offset: int,
) -> Response[Any | ErrorEnvelope]:
    """Appends the body at `Upload-Offset`, which must be where the upload stands (`Tus-Resumable:
    1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (AppendUploadTusResumable):
        upload_offset (int):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        body=body,
        tus_resumable=tus_resumable,
        upload_offset=upload_offset,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    tus_resumable: AppendUploadTusResumable,
    upload_offset: int,
) -> Any | ErrorEnvelope | None:
    """Appends the body at `Upload-Offset`, which must be where the upload stands (`Tus-Resumable:
    1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (AppendUploadTusResumable):
        upload_offset (int):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            upload_id=upload_id,
            client=client,
            body=body,
            tus_resumable=tus_resumable,
            upload_offset=upload_offset,
        )
    ).parsed
