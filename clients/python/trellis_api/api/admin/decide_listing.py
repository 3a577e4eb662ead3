from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.listing_decision import ListingDecision
from ...models.reviewed_listing_view import ReviewedListingView
from ...types import Response


def _get_kwargs(
    space_id: str,
    *,
    body: ListingDecision,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/admin/marketplace/listings/{space_id}/decision".format(
            space_id=quote(str(space_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | ReviewedListingView | None:
    if response.status_code == 200:
        response_200 = ReviewedListingView.from_dict(response.json())

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

    if response.status_code == 409:
        response_409 = ErrorEnvelope.from_dict(response.json())

        return response_409

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
) -> Response[ErrorEnvelope | ReviewedListingView]:
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
    body: ListingDecision,
) -> Response[ErrorEnvelope | ReviewedListingView]:
    """Decides a SUBMITTED listing, or with `approved: "NO"` takes a listed space off the marketplace
    (REJECTED, no longer listed); the owner is told by a message from `system`.

    Args:
        space_id (str):
        body (ListingDecision): The operator's decision. The handler reads the body as a map so it
            can name every unknown
            property; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ReviewedListingView]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    space_id: str,
    *,
    client: AuthenticatedClient,
    body: ListingDecision,
) -> ErrorEnvelope | ReviewedListingView | None:
    """Decides a SUBMITTED listing, or with `approved: "NO"` takes a listed space off the marketplace
    (REJECTED, no longer listed); the owner is told by a message from `system`.

    Args:
        space_id (str):
        body (ListingDecision): The operator's decision. The handler reads the body as a map so it
            can name every unknown
            property; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ReviewedListingView
    """

    return sync_detailed(
        space_id=space_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    space_id: str,
    *,
    client: AuthenticatedClient,
    body: ListingDecision,
) -> Response[ErrorEnvelope | ReviewedListingView]:
    """Decides a SUBMITTED listing, or with `approved: "NO"` takes a listed space off the marketplace
    (REJECTED, no longer listed); the owner is told by a message from `system`.

    Args:
        space_id (str):
        body (ListingDecision): The operator's decision. The handler reads the body as a map so it
            can name every unknown
            property; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ReviewedListingView]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    space_id: str,
    *,
    client: AuthenticatedClient,
    body: ListingDecision,
) -> ErrorEnvelope | ReviewedListingView | None:
    """Decides a SUBMITTED listing, or with `approved: "NO"` takes a listed space off the marketplace
    (REJECTED, no longer listed); the owner is told by a message from `system`.

    Args:
        space_id (str):
        body (ListingDecision): The operator's decision. The handler reads the body as a map so it
            can name every unknown
            property; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ReviewedListingView
    """

    return (
        await asyncio_detailed(
            space_id=space_id,
            client=client,
            body=body,
        )
    ).parsed
