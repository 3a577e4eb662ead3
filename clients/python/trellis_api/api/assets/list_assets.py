from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.list_assets_states_item import ListAssetsStatesItem
from ...models.list_envelope_asset_view import ListEnvelopeAssetView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    space_id: str,
    *,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListAssetsStatesItem] | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    params["cursor"] = cursor

    json_states: list[str] | Unset = UNSET
    if not isinstance(states, Unset):
        json_states = []
        for states_item_data in states:
            states_item = states_item_data.value
            json_states.append(states_item)

    params["states"] = json_states

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/spaces/{space_id}/assets".format(
            space_id=quote(str(space_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | ListEnvelopeAssetView | None:
    if response.status_code == 200:
        response_200 = ListEnvelopeAssetView.from_dict(response.json())

        return response_200

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
) -> Response[ErrorEnvelope | ListEnvelopeAssetView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    space_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListAssetsStatesItem] | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeAssetView]:
    """The space's assets the caller may see, newest first: the owner every asset, members the
    APPROVED and ENABLED ones and their own proposals.

    Args:
        space_id (str):
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListAssetsStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeAssetView]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        limit=limit,
        cursor=cursor,
        states=states,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    space_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListAssetsStatesItem] | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeAssetView | None:
    """The space's assets the caller may see, newest first: the owner every asset, members the
    APPROVED and ENABLED ones and their own proposals.

    Args:
        space_id (str):
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListAssetsStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeAssetView
    """

    return sync_detailed(
        space_id=space_id,
        client=client,
        limit=limit,
        cursor=cursor,
        states=states,
    ).parsed


async def asyncio_detailed(
    space_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListAssetsStatesItem] | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeAssetView]:
    """The space's assets the caller may see, newest first: the owner every asset, members the
    APPROVED and ENABLED ones and their own proposals.

    Args:
        space_id (str):
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListAssetsStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeAssetView]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        limit=limit,
        cursor=cursor,
        states=states,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    space_id: str,
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListAssetsStatesItem] | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeAssetView | None:
    """The space's assets the caller may see, newest first: the owner every asset, members the
    APPROVED and ENABLED ones and their own proposals.

    Args:
        space_id (str):
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListAssetsStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeAssetView
    """

    return (
        await asyncio_detailed(
            space_id=space_id,
            client=client,
            limit=limit,
            cursor=cursor,
            states=states,
        )
    ).parsed
