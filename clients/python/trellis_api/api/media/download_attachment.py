from http import HTTPStatus
from io import BytesIO
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    form_id: str,
    part_key: str,
    *,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["workflowConfigurationId"] = workflow_configuration_id

    params["workflowViewId"] = workflow_view_id

    params["fieldId"] = field_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/media/forms/{form_id}/attachments/{part_key}".format(
            form_id=quote(str(form_id), safe=""),
            part_key=quote(str(part_key), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | File | None:
    if response.status_code == 200:
        response_200 = File(payload=BytesIO(response.content))

        return response_200

    if response.status_code == 206:
        response_206 = File(payload=BytesIO(response.content))

        return response_206

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

    if response.status_code == 416:
        response_416 = ErrorEnvelope.from_dict(response.json())

        return response_416

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
    form_id: str,
    part_key: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> Response[ErrorEnvelope | File]:
    """The bytes of one attachment; honours `Range`, `If-None-Match` and `If-Range`.

    Args:
        form_id (str):
        part_key (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        form_id=form_id,
        part_key=part_key,
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        field_id=field_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    form_id: str,
    part_key: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> ErrorEnvelope | File | None:
    """The bytes of one attachment; honours `Range`, `If-None-Match` and `If-Range`.

    Args:
        form_id (str):
        part_key (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | File
    """

    return sync_detailed(
        form_id=form_id,
        part_key=part_key,
        client=client,
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        field_id=field_id,
    ).parsed


async def asyncio_detailed(
    form_id: str,
    part_key: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> Response[ErrorEnvelope | File]:
    """The bytes of one attachment; honours `Range`, `If-None-Match` and `If-Range`.

    Args:
        form_id (str):
        part_key (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | File]
    """

    kwargs = _get_kwargs(
        form_id=form_id,
        part_key=part_key,
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        field_id=field_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    form_id: str,
    part_key: str,
    *,
    client: AuthenticatedClient,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> ErrorEnvelope | File | None:
    """The bytes of one attachment; honours `Range`, `If-None-Match` and `If-Range`.

    Args:
        form_id (str):
        part_key (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | File
    """

    return (
        await asyncio_detailed(
            form_id=form_id,
            part_key=part_key,
            client=client,
            workflow_configuration_id=workflow_configuration_id,
            workflow_view_id=workflow_view_id,
            field_id=field_id,
        )
    ).parsed
