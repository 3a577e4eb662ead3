from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.invite_request import InviteRequest
from ...models.invites_created import InvitesCreated
from ...types import Response


def _get_kwargs(
    channel_id: str,
    *,
    body: InviteRequest,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/channels/{channel_id}/invites".format(
            channel_id=quote(str(channel_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | InvitesCreated | None:
    if response.status_code == 201:
        response_201 = InvitesCreated.from_dict(response.json())

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

    if response.status_code == 404:
        response_404 = ErrorEnvelope.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = ErrorEnvelope.from_dict(response.json())

        return response_413

    if response.status_code == 415:
        response_415 = ErrorEnvelope.from_dict(response.json())

        return response_415

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
) -> Response[ErrorEnvelope | InvitesCreated]:
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
    body: InviteRequest,
) -> Response[ErrorEnvelope | InvitesCreated]:
    """Invites users by handle; the channel's owner and inviters may. A handle of a member answers
    its membership, one already invited its PENDING invite; no second invite is made. Any unknown
    handle (or the caller's own) refuses the whole request, as does a user who declined this
    channel's invite less than `rate_limits.reinvite_after_decline_seconds` (24 h) ago.

    Args:
        channel_id (str):
        body (InviteRequest): Whom to invite.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | InvitesCreated]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    channel_id: str,
    *,
    client: AuthenticatedClient,
    body: InviteRequest,
) -> ErrorEnvelope | InvitesCreated | None:
    """Invites users by handle; the channel's owner and inviters may. A handle of a member answers
    its membership, one already invited its PENDING invite; no second invite is made. Any unknown
    handle (or the caller's own) refuses the whole request, as does a user who declined this
    channel's invite less than `rate_limits.reinvite_after_decline_seconds` (24 h) ago.

    Args:
        channel_id (str):
        body (InviteRequest): Whom to invite.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | InvitesCreated
    """

    return sync_detailed(
        channel_id=channel_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    channel_id: str,
    *,
    client: AuthenticatedClient,
    body: InviteRequest,
) -> Response[ErrorEnvelope | InvitesCreated]:
    """Invites users by handle; the channel's owner and inviters may. A handle of a member answers
    its membership, one already invited its PENDING invite; no second invite is made. Any unknown
    handle (or the caller's own) refuses the whole request, as does a user who declined this
    channel's invite less than `rate_limits.reinvite_after_decline_seconds` (24 h) ago.

    Args:
        channel_id (str):
        body (InviteRequest): Whom to invite.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | InvitesCreated]
    """

    kwargs = _get_kwargs(
        channel_id=channel_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    channel_id: str,
    *,
    client: AuthenticatedClient,
    body: InviteRequest,
) -> ErrorEnvelope | InvitesCreated | None:
    """Invites users by handle; the channel's owner and inviters may. A handle of a member answers
    its membership, one already invited its PENDING invite; no second invite is made. Any unknown
    handle (or the caller's own) refuses the whole request, as does a user who declined this
    channel's invite less than `rate_limits.reinvite_after_decline_seconds` (24 h) ago.

    Args:
        channel_id (str):
        body (InviteRequest): Whom to invite.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | InvitesCreated
    """

    return (
        await asyncio_detailed(
            channel_id=channel_id,
            client=client,
            body=body,
        )
    ).parsed
