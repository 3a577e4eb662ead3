from http import HTTPStatus
from typing import Any, cast

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.live_event_data import LiveEventData
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    ticket: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id_header, Unset):
        headers["Last-Event-ID"] = last_event_id_header

    params: dict[str, Any] = {}

    params["ticket"] = ticket

    params["lastEventId"] = last_event_id_query

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/events",
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | LiveEventData | str | None:
    if response.status_code == 200:

        def _parse_response_200(data: object) -> LiveEventData | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_1 = LiveEventData.from_dict(data)

                return response_200_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(LiveEventData | str, data)

        response_200 = _parse_response_200(response.text)

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
) -> Response[ErrorEnvelope | LiveEventData | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    ticket: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: None | str | Unset = UNSET,
) -> Response[ErrorEnvelope | LiveEventData | str]:
    """The signed-in user's live updates, as `text/event-stream`. Each event has `id:` (increasing;
    send the last one back as `Last-Event-ID` to resume), `event:` (`message.created`,
    `unread.changed`, `comment.created`, `asset.changed`, `invite.created`,
    `registration.changed`, `item.changed`; see the `Live*` schemas for each one's `data:`) and one
    line of JSON as `data:`. A resumed stream first sends what was missed, if it is at most 5
    minutes and 1,000 events back, else `event: reset` (`data: {}`): read again what you show.
    A `: keep-alive` comment comes at least every 15 seconds. The stream ends when the session
    ends or the license key is revoked, and after an hour (the server's `live.max_stream_seconds`):
    reconnect with `Last-Event-ID`. At most 5 streams per user.

    Args:
        ticket (str | Unset):
        last_event_id_query (str | Unset):
        last_event_id_header (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | LiveEventData | str]
    """

    kwargs = _get_kwargs(
        ticket=ticket,
        last_event_id_query=last_event_id_query,
        last_event_id_header=last_event_id_header,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    ticket: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: None | str | Unset = UNSET,
) -> ErrorEnvelope | LiveEventData | str | None:
    """The signed-in user's live updates, as `text/event-stream`. Each event has `id:` (increasing;
    send the last one back as `Last-Event-ID` to resume), `event:` (`message.created`,
    `unread.changed`, `comment.created`, `asset.changed`, `invite.created`,
    `registration.changed`, `item.changed`; see the `Live*` schemas for each one's `data:`) and one
    line of JSON as `data:`. A resumed stream first sends what was missed, if it is at most 5
    minutes and 1,000 events back, else `event: reset` (`data: {}`): read again what you show.
    A `: keep-alive` comment comes at least every 15 seconds. The stream ends when the session
    ends or the license key is revoked, and after an hour (the server's `live.max_stream_seconds`):
    reconnect with `Last-Event-ID`. At most 5 streams per user.

    Args:
        ticket (str | Unset):
        last_event_id_query (str | Unset):
        last_event_id_header (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | LiveEventData | str
    """

    return sync_detailed(
        client=client,
        ticket=ticket,
        last_event_id_query=last_event_id_query,
        last_event_id_header=last_event_id_header,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    ticket: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: None | str | Unset = UNSET,
) -> Response[ErrorEnvelope | LiveEventData | str]:
    """The signed-in user's live updates, as `text/event-stream`. Each event has `id:` (increasing;
    send the last one back as `Last-Event-ID` to resume), `event:` (`message.created`,
    `unread.changed`, `comment.created`, `asset.changed`, `invite.created`,
    `registration.changed`, `item.changed`; see the `Live*` schemas for each one's `data:`) and one
    line of JSON as `data:`. A resumed stream first sends what was missed, if it is at most 5
    minutes and 1,000 events back, else `event: reset` (`data: {}`): read again what you show.
    A `: keep-alive` comment comes at least every 15 seconds. The stream ends when the session
    ends or the license key is revoked, and after an hour (the server's `live.max_stream_seconds`):
    reconnect with `Last-Event-ID`. At most 5 streams per user.

    Args:
        ticket (str | Unset):
        last_event_id_query (str | Unset):
        last_event_id_header (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | LiveEventData | str]
    """

    kwargs = _get_kwargs(
        ticket=ticket,
        last_event_id_query=last_event_id_query,
        last_event_id_header=last_event_id_header,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    ticket: str | Unset = UNSET,
    last_event_id_query: str | Unset = UNSET,
    last_event_id_header: None | str | Unset = UNSET,
) -> ErrorEnvelope | LiveEventData | str | None:
    """The signed-in user's live updates, as `text/event-stream`. Each event has `id:` (increasing;
    send the last one back as `Last-Event-ID` to resume), `event:` (`message.created`,
    `unread.changed`, `comment.created`, `asset.changed`, `invite.created`,
    `registration.changed`, `item.changed`; see the `Live*` schemas for each one's `data:`) and one
    line of JSON as `data:`. A resumed stream first sends what was missed, if it is at most 5
    minutes and 1,000 events back, else `event: reset` (`data: {}`): read again what you show.
    A `: keep-alive` comment comes at least every 15 seconds. The stream ends when the session
    ends or the license key is revoked, and after an hour (the server's `live.max_stream_seconds`):
    reconnect with `Last-Event-ID`. At most 5 streams per user.

    Args:
        ticket (str | Unset):
        last_event_id_query (str | Unset):
        last_event_id_header (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | LiveEventData | str
    """

    return (
        await asyncio_detailed(
            client=client,
            ticket=ticket,
            last_event_id_query=last_event_id_query,
            last_event_id_header=last_event_id_header,
        )
    ).parsed
