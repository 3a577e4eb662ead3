from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.connected_modules import ConnectedModules
from ...models.error_envelope import ErrorEnvelope
from ...types import UNSET, Response, Unset


def _get_kwargs(
    space_id: str,
    *,
    body: ConnectedModules,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

    _kwargs: dict[str, Any] = {
        "method": "put",
        "url": "/v0/spaces/{space_id}/modules".format(
            space_id=quote(str(space_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ConnectedModules | ErrorEnvelope | None:
    if response.status_code == 200:
        response_200 = ConnectedModules.from_dict(response.json())

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
) -> Response[ConnectedModules | ErrorEnvelope]:
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
    body: ConnectedModules,
    if_match: str | Unset = UNSET,
) -> Response[ConnectedModules | ErrorEnvelope]:
    """Replaces the connected set; only the owner may. Each `config` is checked against its module's
    schema, and every problem is listed.

    Args:
        space_id (str):
        if_match (str | Unset):
        body (ConnectedModules): `{modules: [{moduleId, config}]}`: what `GET` answers and `PUT`
            takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConnectedModules | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        body=body,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    space_id: str,
    *,
    client: AuthenticatedClient,
    body: ConnectedModules,
    if_match: str | Unset = UNSET,
) -> ConnectedModules | ErrorEnvelope | None:
    """Replaces the connected set; only the owner may. Each `config` is checked against its module's
    schema, and every problem is listed.

    Args:
        space_id (str):
        if_match (str | Unset):
        body (ConnectedModules): `{modules: [{moduleId, config}]}`: what `GET` answers and `PUT`
            takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConnectedModules | ErrorEnvelope
    """

    return sync_detailed(
        space_id=space_id,
        client=client,
        body=body,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    space_id: str,
    *,
    client: AuthenticatedClient,
    body: ConnectedModules,
    if_match: str | Unset = UNSET,
) -> Response[ConnectedModules | ErrorEnvelope]:
    """Replaces the connected set; only the owner may. Each `config` is checked against its module's
    schema, and every problem is listed.

    Args:
        space_id (str):
        if_match (str | Unset):
        body (ConnectedModules): `{modules: [{moduleId, config}]}`: what `GET` answers and `PUT`
            takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ConnectedModules | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        body=body,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    space_id: str,
    *,
    client: AuthenticatedClient,
    body: ConnectedModules,
    if_match: str | Unset = UNSET,
) -> ConnectedModules | ErrorEnvelope | None:
    """Replaces the connected set; only the owner may. Each `config` is checked against its module's
    schema, and every problem is listed.

    Args:
        space_id (str):
        if_match (str | Unset):
        body (ConnectedModules): `{modules: [{moduleId, config}]}`: what `GET` answers and `PUT`
            takes.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ConnectedModules | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            space_id=space_id,
            client=client,
            body=body,
            if_match=if_match,
        )
    ).parsed
