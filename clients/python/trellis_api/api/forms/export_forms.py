import datetime
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.export_forms_format import ExportFormsFormat
from ...models.export_forms_states_item import ExportFormsStatesItem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    format_: ExportFormsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    states: list[ExportFormsStatesItem] | Unset = UNSET,
    updated_since: datetime.datetime | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    params["configurationId"] = configuration_id

    json_states: list[str] | Unset = UNSET
    if not isinstance(states, Unset):
        json_states = []
        for states_item_data in states:
            states_item = states_item_data.value
            json_states.append(states_item)

    params["states"] = json_states

    json_updated_since: str | Unset = UNSET
    if not isinstance(updated_since, Unset):
        json_updated_since = updated_since.isoformat()
    params["updatedSince"] = json_updated_since

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/forms/export",
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
    format_: ExportFormsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    states: list[ExportFormsStatesItem] | Unset = UNSET,
    updated_since: datetime.datetime | Unset = UNSET,
) -> Response[ErrorEnvelope | str]:
    """Every form instance the caller may read (their own, those of workflows they created, and those the
    views
    they hold show, reduced to what those show), streamed as JSON lines or CSV.

    Args:
        format_ (ExportFormsFormat | Unset):
        configuration_id (str | Unset):
        states (list[ExportFormsStatesItem] | Unset):
        updated_since (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
    """

    kwargs = _get_kwargs(
        format_=format_,
        configuration_id=configuration_id,
        states=states,
        updated_since=updated_since,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    format_: ExportFormsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    states: list[ExportFormsStatesItem] | Unset = UNSET,
    updated_since: datetime.datetime | Unset = UNSET,
) -> ErrorEnvelope | str | None:
    """Every form instance the caller may read (their own, those of workflows they created, and those the
    views
    they hold show, reduced to what those show), streamed as JSON lines or CSV.

    Args:
        format_ (ExportFormsFormat | Unset):
        configuration_id (str | Unset):
        states (list[ExportFormsStatesItem] | Unset):
        updated_since (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
    """

    return sync_detailed(
        client=client,
        format_=format_,
        configuration_id=configuration_id,
        states=states,
        updated_since=updated_since,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    format_: ExportFormsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    states: list[ExportFormsStatesItem] | Unset = UNSET,
    updated_since: datetime.datetime | Unset = UNSET,
) -> Response[ErrorEnvelope | str]:
    """Every form instance the caller may read (their own, those of workflows they created, and those the
    views
    they hold show, reduced to what those show), streamed as JSON lines or CSV.

    Args:
        format_ (ExportFormsFormat | Unset):
        configuration_id (str | Unset):
        states (list[ExportFormsStatesItem] | Unset):
        updated_since (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | str]
    """

    kwargs = _get_kwargs(
        format_=format_,
        configuration_id=configuration_id,
        states=states,
        updated_since=updated_since,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    format_: ExportFormsFormat | Unset = UNSET,
    configuration_id: str | Unset = UNSET,
    states: list[ExportFormsStatesItem] | Unset = UNSET,
    updated_since: datetime.datetime | Unset = UNSET,
) -> ErrorEnvelope | str | None:
    """Every form instance the caller may read (their own, those of workflows they created, and those the
    views
    they hold show, reduced to what those show), streamed as JSON lines or CSV.

    Args:
        format_ (ExportFormsFormat | Unset):
        configuration_id (str | Unset):
        states (list[ExportFormsStatesItem] | Unset):
        updated_since (datetime.datetime | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | str
    """

    return (
        await asyncio_detailed(
            client=client,
            format_=format_,
            configuration_id=configuration_id,
            states=states,
            updated_since=updated_since,
        )
    ).parsed
