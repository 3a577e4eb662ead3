from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.export_items_format import ExportItemsFormat
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    workflow_configuration_id: str,
    workflow_view_id: str,
    format_: ExportItemsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    language: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["workflowConfigurationId"] = workflow_configuration_id

    params["workflowViewId"] = workflow_view_id

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    params["configurationId"] = configuration_id

    params["language"] = language

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/workflows/items/export",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | str | None:
    if response.status_code == 200:
        response_200 = response.text
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
) -> Response[ErrorEnvelope | str]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str,
    workflow_view_id: str,
    format_: ExportItemsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    language: str | Unset = UNSET,
) -> Response[ErrorEnvelope | str]:
    """The items of a view the caller holds, reduced to what the view shows, streamed as JSON lines or CSV.

    Args:
        workflow_configuration_id (str):
        workflow_view_id (str):
        format_ (ExportItemsFormat | Unset):
        configuration_id (str | Unset):
        language (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
    """

    kwargs = _get_kwargs(
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        format_=format_,
        configuration_id=configuration_id,
        language=language,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str,
    workflow_view_id: str,
    format_: ExportItemsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    language: str | Unset = UNSET,
) -> ErrorEnvelope | str | None:
    """The items of a view the caller holds, reduced to what the view shows, streamed as JSON lines or CSV.

    Args:
        workflow_configuration_id (str):
        workflow_view_id (str):
        format_ (ExportItemsFormat | Unset):
        configuration_id (str | Unset):
        language (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
    """

    return sync_detailed(
        client=client,
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        format_=format_,
        configuration_id=configuration_id,
        language=language,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str,
    workflow_view_id: str,
    format_: ExportItemsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    language: str | Unset = UNSET,
) -> Response[ErrorEnvelope | str]:
    """The items of a view the caller holds, reduced to what the view shows, streamed as JSON lines or CSV.

    Args:
        workflow_configuration_id (str):
        workflow_view_id (str):
        format_ (ExportItemsFormat | Unset):
        configuration_id (str | Unset):
        language (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
    """

    kwargs = _get_kwargs(
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        format_=format_,
        configuration_id=configuration_id,
        language=language,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str,
    workflow_view_id: str,
    format_: ExportItemsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    language: str | Unset = UNSET,
) -> ErrorEnvelope | str | None:
    """The items of a view the caller holds, reduced to what the view shows, streamed as JSON lines or CSV.

    Args:
        workflow_configuration_id (str):
        workflow_view_id (str):
        format_ (ExportItemsFormat | Unset):
        configuration_id (str | Unset):
        language (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
    """

    return (
        await asyncio_detailed(
            client=client,
            workflow_configuration_id=workflow_configuration_id,
            workflow_view_id=workflow_view_id,
            format_=format_,
            configuration_id=configuration_id,
            language=language,
        )
    ).parsed
