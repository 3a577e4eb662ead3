from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.terminate_upload_tus_resumable import TerminateUploadTusResumable
from ...types import Response


def _get_kwargs(
    upload_id: str,
    *,
    tus_resumable: TerminateUploadTusResumable,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Tus-Resumable"] = str(tus_resumable)

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/v0/media/uploads/{upload_id}".format(
            upload_id=quote(str(upload_id), safe=""),
        ),
    }

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

    if response.status_code == 412:
        response_412 = ErrorEnvelope.from_dict(response.json())

        return response_412

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
    tus_resumable: TerminateUploadTusResumable,
) -> Response[Any | ErrorEnvelope]:
    """Removes an upload and its bytes (tus termination; `Tus-Resumable: 1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (TerminateUploadTusResumable):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        tus_resumable=tus_resumable,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    tus_resumable: TerminateUploadTusResumable,
) -> Any | ErrorEnvelope | None:
    """Removes an upload and its bytes (tus termination; `Tus-Resumable: 1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (TerminateUploadTusResumable):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope
    """

    return sync_detailed(
        upload_id=upload_id,
        client=client,
        tus_resumable=tus_resumable,
    ).parsed


async def asyncio_detailed(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    tus_resumable: TerminateUploadTusResumable,
) -> Response[Any | ErrorEnvelope]:
    """Removes an upload and its bytes (tus termination; `Tus-Resumable: 1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (TerminateUploadTusResumable):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        tus_resumable=tus_resumable,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    tus_resumable: TerminateUploadTusResumable,
) -> Any | ErrorEnvelope | None:
    """Removes an upload and its bytes (tus termination; `Tus-Resumable: 1.0.0` required).

    Args:
        upload_id (str):
        tus_resumable (TerminateUploadTusResumable):

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
            tus_resumable=tus_resumable,
        )
    ).parsed
