from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.get_item_item_type import GetItemItemType
from ...models.item_detail import ItemDetail
from ...types import UNSET, Response, Unset


def _get_kwargs(
    item_id: str,
    *,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: GetItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_none_match, Unset):
        headers["If-None-Match"] = if_none_match

    params: dict[str, Any] = {}

    params["workflowConfigurationId"] = workflow_configuration_id

    params["viewId"] = view_id

    json_item_type: str | Unset = UNSET
    if not isinstance(item_type, Unset):
        json_item_type = item_type.value

    params["itemType"] = json_item_type

    params["language"] = language

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/workflows/items/{item_id}".format(
            item_id=quote(str(item_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Any | ErrorEnvelope | ItemDetail | None:
    if response.status_code == 200:
        response_200 = ItemDetail.from_dict(response.json())

        return response_200

    if response.status_code == 304:
        response_304 = cast(Any, None)
        return response_304

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
) -> Response[Any | ErrorEnvelope | ItemDetail]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    item_id: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: GetItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | ErrorEnvelope | ItemDetail]:
    """An item through a view (or as the workflow's creator); carries an `ETag`.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (GetItemItemType | Unset):
        language (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | ItemDetail]
    """

    kwargs = _get_kwargs(
        item_id=item_id,
        workflow_configuration_id=workflow_configuration_id,
        view_id=view_id,
        item_type=item_type,
        language=language,
        if_none_match=if_none_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    item_id: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: GetItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | ErrorEnvelope | ItemDetail | None:
    """An item through a view (or as the workflow's creator); carries an `ETag`.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (GetItemItemType | Unset):
        language (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | ItemDetail
    """

    return sync_detailed(
        item_id=item_id,
        client=client,
        workflow_configuration_id=workflow_configuration_id,
        view_id=view_id,
        item_type=item_type,
        language=language,
        if_none_match=if_none_match,
    ).parsed


async def asyncio_detailed(
    item_id: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: GetItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Response[Any | ErrorEnvelope | ItemDetail]:
    """An item through a view (or as the workflow's creator); carries an `ETag`.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (GetItemItemType | Unset):
        language (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | ErrorEnvelope | ItemDetail]
    """

    kwargs = _get_kwargs(
        item_id=item_id,
        workflow_configuration_id=workflow_configuration_id,
        view_id=view_id,
        item_type=item_type,
        language=language,
        if_none_match=if_none_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    item_id: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: GetItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_none_match: str | Unset = UNSET,
) -> Any | ErrorEnvelope | ItemDetail | None:
    """An item through a view (or as the workflow's creator); carries an `ETag`.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (GetItemItemType | Unset):
        language (str | Unset):
        if_none_match (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | ErrorEnvelope | ItemDetail
    """

    return (
        await asyncio_detailed(
            item_id=item_id,
            client=client,
            workflow_configuration_id=workflow_configuration_id,
            view_id=view_id,
            item_type=item_type,
            language=language,
            if_none_match=if_none_match,
        )
    ).parsed
