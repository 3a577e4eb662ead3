from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.item_detail import ItemDetail
from ...models.transition_item_item_type import TransitionItemItemType
from ...models.transition_request import TransitionRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    item_id: str,
    *,
    body: TransitionRequest,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: TransitionItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(if_match, Unset):
        headers["If-Match"] = if_match

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
        "method": "post",
        "url": "/v0/workflows/items/{item_id}/transitions".format(
            item_id=quote(str(item_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | ItemDetail | None:
    if response.status_code == 200:
        response_200 = ItemDetail.from_dict(response.json())

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
) -> Response[ErrorEnvelope | ItemDetail]:
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
    body: TransitionRequest,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: TransitionItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[ErrorEnvelope | ItemDetail]:
    """Moves the item along one of its available transitions.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (TransitionItemItemType | Unset):
        language (str | Unset):
        if_match (str | Unset):
        body (TransitionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ItemDetail]
    """

    kwargs = _get_kwargs(
        item_id=item_id,
        body=body,
        workflow_configuration_id=workflow_configuration_id,
        view_id=view_id,
        item_type=item_type,
        language=language,
        if_match=if_match,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    item_id: str,
    *,
    client: AuthenticatedClient,
    body: TransitionRequest,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: TransitionItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> ErrorEnvelope | ItemDetail | None:
    """Moves the item along one of its available transitions.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (TransitionItemItemType | Unset):
        language (str | Unset):
        if_match (str | Unset):
        body (TransitionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ItemDetail
    """

    return sync_detailed(
        item_id=item_id,
        client=client,
        body=body,
        workflow_configuration_id=workflow_configuration_id,
        view_id=view_id,
        item_type=item_type,
        language=language,
        if_match=if_match,
    ).parsed


async def asyncio_detailed(
    item_id: str,
    *,
    client: AuthenticatedClient,
    body: TransitionRequest,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: TransitionItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> Response[ErrorEnvelope | ItemDetail]:
    """Moves the item along one of its available transitions.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (TransitionItemItemType | Unset):
        language (str | Unset):
        if_match (str | Unset):
        body (TransitionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ItemDetail]
    """

    kwargs = _get_kwargs(
        item_id=item_id,
        body=body,
        workflow_configuration_id=workflow_configuration_id,
        view_id=view_id,
        item_type=item_type,
        language=language,
        if_match=if_match,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    item_id: str,
    *,
    client: AuthenticatedClient,
    body: TransitionRequest,
    workflow_configuration_id: str | Unset = UNSET,
    view_id: str | Unset = UNSET,
    item_type: TransitionItemItemType | Unset = UNSET,
    language: str | Unset = UNSET,
    if_match: str | Unset = UNSET,
) -> ErrorEnvelope | ItemDetail | None:
    """Moves the item along one of its available transitions.

    Args:
        item_id (str):
        workflow_configuration_id (str | Unset):
        view_id (str | Unset):
        item_type (TransitionItemItemType | Unset):
        language (str | Unset):
        if_match (str | Unset):
        body (TransitionRequest):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ItemDetail
    """

    return (
        await asyncio_detailed(
            item_id=item_id,
            client=client,
            body=body,
            workflow_configuration_id=workflow_configuration_id,
            view_id=view_id,
            item_type=item_type,
            language=language,
            if_match=if_match,
        )
    ).parsed
