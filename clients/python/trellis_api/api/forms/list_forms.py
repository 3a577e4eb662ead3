from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error_envelope import ErrorEnvelope
from ...models.list_envelope_instance_summary import ListEnvelopeInstanceSummary
from ...models.list_forms_states_item import ListFormsStatesItem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    configuration_id: str | Unset = UNSET,
    space_id: str | Unset = UNSET,
    states: list[ListFormsStatesItem] | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["configurationId"] = configuration_id

    params["spaceId"] = space_id

    json_states: list[str] | Unset = UNSET
    if not isinstance(states, Unset):
        json_states = []
        for states_item_data in states:
            states_item = states_item_data.value
            json_states.append(states_item)

    params["states"] = json_states

    params["limit"] = limit

    params["cursor"] = cursor

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/v0/forms",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | ListEnvelopeInstanceSummary | None:
    if response.status_code == 200:
        response_200 = ListEnvelopeInstanceSummary.from_dict(response.json())

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
) -> Response[ErrorEnvelope | ListEnvelopeInstanceSummary]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    configuration_id: str | Unset = UNSET,
    space_id: str | Unset = UNSET,
    states: list[ListFormsStatesItem] | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeInstanceSummary]:
    """The caller's instances, newest first.

    Args:
        configuration_id (str | Unset):
        space_id (str | Unset):
        states (list[ListFormsStatesItem] | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeInstanceSummary]
    """

    kwargs = _get_kwargs(
        configuration_id=configuration_id,
        space_id=space_id,
        states=states,
        limit=limit,
        cursor=cursor,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    configuration_id: str | Unset = UNSET,
    space_id: str | Unset = UNSET,
    states: list[ListFormsStatesItem] | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeInstanceSummary | None:
    """The caller's instances, newest first.

    Args:
        configuration_id (str | Unset):
        space_id (str | Unset):
        states (list[ListFormsStatesItem] | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeInstanceSummary
    """

    return sync_detailed(
        client=client,
        configuration_id=configuration_id,
        space_id=space_id,
        states=states,
        limit=limit,
        cursor=cursor,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    configuration_id: str | Unset = UNSET,
    space_id: str | Unset = UNSET,
    states: list[ListFormsStatesItem] | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> Response[ErrorEnvelope | ListEnvelopeInstanceSummary]:
    """The caller's instances, newest first.

    Args:
        configuration_id (str | Unset):
        space_id (str | Unset):
        states (list[ListFormsStatesItem] | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | ListEnvelopeInstanceSummary]
    """

    kwargs = _get_kwargs(
        configuration_id=configuration_id,
        space_id=space_id,
        states=states,
        limit=limit,
        cursor=cursor,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    configuration_id: str | Unset = UNSET,
    space_id: str | Unset = UNSET,
    states: list[ListFormsStatesItem] | Unset = UNSET,
    limit: int | Unset = UNSET,
    cursor: str | Unset = UNSET,
) -> ErrorEnvelope | ListEnvelopeInstanceSummary | None:
    """The caller's instances, newest first.

    Args:
        configuration_id (str | Unset):
        space_id (str | Unset):
        states (list[ListFormsStatesItem] | Unset):
        limit (int | Unset):
        cursor (str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | ListEnvelopeInstanceSummary
    """

    return (
        await asyncio_detailed(
            client=client,
            configuration_id=configuration_id,
            space_id=space_id,
            states=states,
            limit=limit,
            cursor=cursor,
        )
    ).parsed
