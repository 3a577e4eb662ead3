from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.attachment_upload import AttachmentUpload
from ...models.error_envelope import ErrorEnvelope
from ...models.uploaded import Uploaded
from ...models.use_uploads import UseUploads
from ...types import UNSET, Response, Unset


def _get_kwargs(
    form_id: str,
    *,
    body: UseUploads | AttachmentUpload | Unset = UNSET,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["workflowConfigurationId"] = workflow_configuration_id

    params["workflowViewId"] = workflow_view_id

    params["fieldId"] = field_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/media/forms/{form_id}/attachments".format(
            form_id=quote(str(form_id), safe=""),
        ),
        "params": params,
    }

    if isinstance(body, UseUploads):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, AttachmentUpload):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> ErrorEnvelope | Uploaded | None:
    if response.status_code == 201:
        response_201 = Uploaded.from_dict(response.json())

        return response_201

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
) -> Response[ErrorEnvelope | Uploaded]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    form_id: str,
    *,
    client: AuthenticatedClient,
    body: UseUploads | AttachmentUpload | Unset = UNSET,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> Response[ErrorEnvelope | Uploaded]:
    """Uploads files to file fields of a form instance: all or nothing.

    Args:
        form_id (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):
        body (UseUploads): Finished resumable uploads used in place of file parts, paired with
            `fieldIds` by position.
        body (AttachmentUpload): The multipart body of an upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | Uploaded]
    """

    kwargs = _get_kwargs(
        form_id=form_id,
        body=body,
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
    *,
    client: AuthenticatedClient,
    body: UseUploads | AttachmentUpload | Unset = UNSET,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> ErrorEnvelope | Uploaded | None:
    """Uploads files to file fields of a form instance: all or nothing.

    Args:
        form_id (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):
        body (UseUploads): Finished resumable uploads used in place of file parts, paired with
            `fieldIds` by position.
        body (AttachmentUpload): The multipart body of an upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | Uploaded
    """

    return sync_detailed(
        form_id=form_id,
        client=client,
        body=body,
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        field_id=field_id,
    ).parsed


async def asyncio_detailed(
    form_id: str,
    *,
    client: AuthenticatedClient,
    body: UseUploads | AttachmentUpload | Unset = UNSET,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> Response[ErrorEnvelope | Uploaded]:
    """Uploads files to file fields of a form instance: all or nothing.

    Args:
        form_id (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):
        body (UseUploads): Finished resumable uploads used in place of file parts, paired with
            `fieldIds` by position.
        body (AttachmentUpload): The multipart body of an upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[ErrorEnvelope | Uploaded]
    """

    kwargs = _get_kwargs(
        form_id=form_id,
        body=body,
        workflow_configuration_id=workflow_configuration_id,
        workflow_view_id=workflow_view_id,
        field_id=field_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    form_id: str,
    *,
    client: AuthenticatedClient,
    body: UseUploads | AttachmentUpload | Unset = UNSET,
    workflow_configuration_id: str | Unset = UNSET,
    workflow_view_id: str | Unset = UNSET,
    field_id: str | Unset = UNSET,
) -> ErrorEnvelope | Uploaded | None:
    """Uploads files to file fields of a form instance: all or nothing.

    Args:
        form_id (str):
        workflow_configuration_id (str | Unset):
        workflow_view_id (str | Unset):
        field_id (str | Unset):
        body (UseUploads): Finished resumable uploads used in place of file parts, paired with
            `fieldIds` by position.
        body (AttachmentUpload): The multipart body of an upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        ErrorEnvelope | Uploaded
    """

    return (
        await asyncio_detailed(
            form_id=form_id,
            client=client,
            body=body,
            workflow_configuration_id=workflow_configuration_id,
            workflow_view_id=workflow_view_id,
            field_id=field_id,
        )
    ).parsed
