from http import HTTPStatus
from io import BytesIO
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.download_asset_part import DownloadAssetPart
from ...models.error_envelope import ErrorEnvelope
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    space_id: str,
    asset_id: str,
    *,
    part: DownloadAssetPart | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_part: str | Unset = UNSET
    if not isinstance(part, Unset):
        json_part = part.value

    params["part"] = json_part

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/media/spaces/{space_id}/assets/{asset_id}".format(
            space_id=quote(str(space_id), safe=""),
            asset_id=quote(str(asset_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorEnvelope | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 206:
        response_206 = File(payload=BytesIO(response.content))

        return response_206

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

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

    if response.status_code == 416:
        response_416 = ErrorEnvelope.from_dict(response.json())

        return response_416

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
) -> Response[Any | ErrorEnvelope | File]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    part: DownloadAssetPart | Unset = UNSET,
) -> Response[Any | ErrorEnvelope | File]:
    """An asset's bytes; honours `Range`, `If-None-Match` and `If-Range` like attachment downloads.

    Args:
        space_id (str):
        asset_id (str):
        part (DownloadAssetPart | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        asset_id=asset_id,
        part=part,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    part: DownloadAssetPart | Unset = UNSET,
) -> Any | ErrorEnvelope | File | None:
    """An asset's bytes; honours `Range`, `If-None-Match` and `If-Range` like attachment downloads.

    Args:
        space_id (str):
        asset_id (str):
        part (DownloadAssetPart | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | File
    """

    return sync_detailed(
        space_id=space_id,
        asset_id=asset_id,
        client=client,
        part=part,
    ).parsed


async def asyncio_detailed(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    part: DownloadAssetPart | Unset = UNSET,
) -> Response[Any | ErrorEnvelope | File]:
    """An asset's bytes; honours `Range`, `If-None-Match` and `If-Range` like attachment downloads.

    Args:
        space_id (str):
        asset_id (str):
        part (DownloadAssetPart | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        asset_id=asset_id,
        part=part,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    part: DownloadAssetPart | Unset = UNSET,
) -> Any | ErrorEnvelope | File | None:
    """An asset's bytes; honours `Range`, `If-None-Match` and `If-Range` like attachment downloads.

    Args:
        space_id (str):
        asset_id (str):
        part (DownloadAssetPart | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | File
    """

    return (
        await asyncio_detailed(
            space_id=space_id,
            asset_id=asset_id,
            client=client,
            part=part,
        )
    ).parsed
