from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.channel_space_set import ChannelSpaceSet
from ...models.error_envelope import ErrorEnvelope
from ...models.list_envelope_connected_space_view import ListEnvelopeConnectedSpaceView
from ...types import UNSET, Response, Unset


def _get_kwargs(
    channel_id: str,
    *,
    body: ChannelSpaceSet,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v0/channels/{channel_id}/spaces".format(
            channel_id=quote(str(channel_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | ListEnvelopeConnectedSpaceView | None:
    if response.status_code == 200:
        response_200 = ListEnvelopeConnectedSpaceView.from_dict(response.json())

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
) -> Response[ErrorEnvelope | ListEnvelopeConnectedSpaceView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    channel_id: str,
    *,
    client: AuthenticatedClient,
    body: ChannelSpaceSet,
    if_match: str | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeConnectedSpaceView]:
    """Replaces the connected spaces; only the owner may, and only with spaces the owner owns:
    connecting a space lets every member of the channel read it. Answers the whole connected set.

    Args:
        channel_id (str):
        if_match (str | Unset):
        body (ChannelSpaceSet): The whole connected set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeConnectedSpaceView]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    channel_id: str,
    *,
    client: AuthenticatedClient,
    body: ChannelSpaceSet,
    if_match: str | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeConnectedSpaceView | None:
    """Replaces the connected spaces; only the owner may, and only with spaces the owner owns:
    connecting a space lets every member of the channel read it. Answers the whole connected set.

    Args:
        channel_id (str):
        if_match (str | Unset):
        body (ChannelSpaceSet): The whole connected set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeConnectedSpaceView
    """

    return sync_detailed(
        channel_id=channel_id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    channel_id: str,
    *,
    client: AuthenticatedClient,
    body: ChannelSpaceSet,
    if_match: str | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeConnectedSpaceView]:
    """Replaces the connected spaces; only the owner may, and only with spaces the owner owns:
    connecting a space lets every member of the channel read it. Answers the whole connected set.

    Args:
        channel_id (str):
        if_match (str | Unset):
        body (ChannelSpaceSet): The whole connected set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeConnectedSpaceView]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    channel_id: str,
    *,
    client: AuthenticatedClient,
    body: ChannelSpaceSet,
    if_match: str | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeConnectedSpaceView | None:
    """Replaces the connected spaces; only the owner may, and only with spaces the owner owns:
    connecting a space lets every member of the channel read it. Answers the whole connected set.

    Args:
        channel_id (str):
        if_match (str | Unset):
        body (ChannelSpaceSet): The whole connected set.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeConnectedSpaceView
    """

    return (
        await asyncio_detailed(
            channel_id=channel_id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
