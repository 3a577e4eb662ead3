from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.list_envelope_reviewed_listing_view import (
    ListEnvelopeReviewedListingView,
)
from ...models.list_listings_for_review_states_item import (
    ListListingsForReviewStatesItem,
)
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListListingsForReviewStatesItem] | Unset = UNSET,
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
        "url": "/v0/admin/marketplace/listings",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | ListEnvelopeReviewedListingView | None:
    if response.status_code == 200:
        response_200 = ListEnvelopeReviewedListingView.from_dict(response.json())

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
) -> Response[ErrorEnvelope | ListEnvelopeReviewedListingView]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListListingsForReviewStatesItem] | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeReviewedListingView]:
    """Listing preparations, newest change first; `states=SUBMITTED` is the queue awaiting a decision.

    Args:
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListListingsForReviewStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeReviewedListingView]
    """

    kwargs = _get_kwargs(
        limit=limit,
        cursor=cursor,
        states=states,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListListingsForReviewStatesItem] | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeReviewedListingView | None:
    """Listing preparations, newest change first; `states=SUBMITTED` is the queue awaiting a decision.

    Args:
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListListingsForReviewStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeReviewedListingView
    """

    return sync_detailed(
        client=client,
        limit=limit,
        cursor=cursor,
        states=states,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListListingsForReviewStatesItem] | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeReviewedListingView]:
    """Listing preparations, newest change first; `states=SUBMITTED` is the queue awaiting a decision.

    Args:
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListListingsForReviewStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeReviewedListingView]
    """

    kwargs = _get_kwargs(
        limit=limit,
        cursor=cursor,
        states=states,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
    states: list[ListListingsForReviewStatesItem] | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeReviewedListingView | None:
    """Listing preparations, newest change first; `states=SUBMITTED` is the queue awaiting a decision.

    Args:
        limit (int | Unset):
        cursor (str | Unset):
        states (list[ListListingsForReviewStatesItem] | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeReviewedListingView
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            cursor=cursor,
            states=states,
        )
    ).parsed
