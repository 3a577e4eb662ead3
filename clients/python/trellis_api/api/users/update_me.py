from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.profile import Profile
from ...models.update_profile import UpdateProfile
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: UpdateProfile,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/v0/users/me",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | Profile | None:
    if response.status_code == 200:
        response_200 = Profile.from_dict(response.json())

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
) -> Response[ErrorEnvelope | Profile]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: UpdateProfile,
    if_match: str | Unset = UNSET,
) -> Response[ErrorEnvelope | Profile]:
    """Changes `displayName` and `fullName`; any other field is refused with its path.

    Args:
        if_match (str | Unset):
        body (UpdateProfile): Fields `PATCH /v0/users/me` changes; the handle and e-mail are read-
            only. The handler reads
            the body as a map so it can name every unknown or read-only field; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | Profile]
    """

    kwargs = _get_kwargs(
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: UpdateProfile,
    if_match: str | Unset = UNSET,
) -> ErrorEnvelope | Profile | None:
    """Changes `displayName` and `fullName`; any other field is refused with its path.

    Args:
        if_match (str | Unset):
        body (UpdateProfile): Fields `PATCH /v0/users/me` changes; the handle and e-mail are read-
            only. The handler reads
            the body as a map so it can name every unknown or read-only field; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | Profile
    """

    return sync_detailed(
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: UpdateProfile,
    if_match: str | Unset = UNSET,
) -> Response[ErrorEnvelope | Profile]:
    """Changes `displayName` and `fullName`; any other field is refused with its path.

    Args:
        if_match (str | Unset):
        body (UpdateProfile): Fields `PATCH /v0/users/me` changes; the handle and e-mail are read-
            only. The handler reads
            the body as a map so it can name every unknown or read-only field; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | Profile]
    """

    kwargs = _get_kwargs(
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: UpdateProfile,
    if_match: str | Unset = UNSET,
) -> ErrorEnvelope | Profile | None:
    """Changes `displayName` and `fullName`; any other field is refused with its path.

    Args:
        if_match (str | Unset):
        body (UpdateProfile): Fields `PATCH /v0/users/me` changes; the handle and e-mail are read-
            only. The handler reads
            the body as a map so it can name every unknown or read-only field; this type documents it.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | Profile
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
