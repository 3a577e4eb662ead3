from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.asset_view import AssetView
from ...models.error_envelope import ErrorEnvelope
from ...types import Response


def _get_kwargs(
    space_id: str,
    asset_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/spaces/{space_id}/assets/{asset_id}/analysis".format(
            space_id=quote(str(space_id), safe=""),
            asset_id=quote(str(asset_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AssetView | ErrorEnvelope | None:
    if response.status_code == 202:
        response_202 = AssetView.from_dict(response.json())

        return response_202

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
) -> Response[AssetView | ErrorEnvelope]:
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
) -> Response[AssetView | ErrorEnvelope]:
    """The owner queues the asset's analysis again (for example after the models were installed, or
    to run steps connected since): every analysis step runs over its bytes once more. Its last
    analysis must have ended; the last result stays readable until the new one replaces it. Each
    owner may do so `spaces.assets.reanalysisPerDay` times a day.

    Args:
        space_id (str):
        asset_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AssetView | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        asset_id=asset_id,
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
) -> AssetView | ErrorEnvelope | None:
    """The owner queues the asset's analysis again (for example after the models were installed, or
    to run steps connected since): every analysis step runs over its bytes once more. Its last
    analysis must have ended; the last result stays readable until the new one replaces it. Each
    owner may do so `spaces.assets.reanalysisPerDay` times a day.

    Args:
        space_id (str):
        asset_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AssetView | ErrorEnvelope
    """

    return sync_detailed(
        space_id=space_id,
        asset_id=asset_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[AssetView | ErrorEnvelope]:
    """The owner queues the asset's analysis again (for example after the models were installed, or
    to run steps connected since): every analysis step runs over its bytes once more. Its last
    analysis must have ended; the last result stays readable until the new one replaces it. Each
    owner may do so `spaces.assets.reanalysisPerDay` times a day.

    Args:
        space_id (str):
        asset_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AssetView | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        asset_id=asset_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
) -> AssetView | ErrorEnvelope | None:
    """The owner queues the asset's analysis again (for example after the models were installed, or
    to run steps connected since): every analysis step runs over its bytes once more. Its last
    analysis must have ended; the last result stays readable until the new one replaces it. Each
    owner may do so `spaces.assets.reanalysisPerDay` times a day.

    Args:
        space_id (str):
        asset_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AssetView | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            space_id=space_id,
            asset_id=asset_id,
            client=client,
        )
    ).parsed
