from http import HTTPStatus
from io import BytesIO
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...types import File, Response


def _get_kwargs(
    db_hash: str,
    user_id: str,
    pic_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/media/users/{db_hash}/{user_id}/avatar/{pic_id}".format(
            db_hash=quote(str(db_hash), safe=""),
            user_id=quote(str(user_id), safe=""),
            pic_id=quote(str(pic_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

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
) -> Response[ErrorEnvelope | File]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    db_hash: str,
    user_id: str,
    pic_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | File]:
    """A user's avatar, by the ids a profile or search result gives.

    Args:
        db_hash (str):
        user_id (str):
        pic_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        db_hash=db_hash,
        user_id=user_id,
        pic_id=pic_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    db_hash: str,
    user_id: str,
    pic_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | File | None:
    """A user's avatar, by the ids a profile or search result gives.

    Args:
        db_hash (str):
        user_id (str):
        pic_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | File
    """

    return sync_detailed(
        db_hash=db_hash,
        user_id=user_id,
        pic_id=pic_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    db_hash: str,
    user_id: str,
    pic_id: str,
    *,
    client: AuthenticatedClient,
) -> Response[ErrorEnvelope | File]:
    """A user's avatar, by the ids a profile or search result gives.

    Args:
        db_hash (str):
        user_id (str):
        pic_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        db_hash=db_hash,
        user_id=user_id,
        pic_id=pic_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    db_hash: str,
    user_id: str,
    pic_id: str,
    *,
    client: AuthenticatedClient,
) -> ErrorEnvelope | File | None:
    """A user's avatar, by the ids a profile or search result gives.

    Args:
        db_hash (str):
        user_id (str):
        pic_id (str):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | File
    """

    return (
        await asyncio_detailed(
            db_hash=db_hash,
            user_id=user_id,
            pic_id=pic_id,
            client=client,
        )
    ).parsed
