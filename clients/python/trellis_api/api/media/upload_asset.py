from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.asset_upload import AssetUpload
from ...models.asset_uploaded import AssetUploaded
from ...models.error_envelope import ErrorEnvelope
from ...models.use_upload import UseUpload
from ...types import UNSET, Response, Unset


def _get_kwargs(
    space_id: str,
    asset_id: str,
    *,
    body: UseUpload | AssetUpload | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/v0/media/spaces/{space_id}/assets/{asset_id}".format(
            space_id=quote(str(space_id), safe=""),
            asset_id=quote(str(asset_id), safe=""),
        ),
    }

    if isinstance(body, UseUpload):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, AssetUpload):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AssetUploaded | ErrorEnvelope | None:
    if response.status_code == 201:
        response_201 = AssetUploaded.from_dict(response.json())

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
) -> Response[AssetUploaded | ErrorEnvelope]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    body: UseUpload | AssetUpload | Unset = UNSET,
) -> Response[AssetUploaded | ErrorEnvelope]:
    """Uploads an announced asset's bytes, once: only its proposer may, and the bytes must agree with
    the announced type. Moves the asset to AWAITING_APPROVAL.

    Args:
        space_id (str):
        asset_id (str):
        body (UseUpload): A finished resumable upload used in place of the file part.
        body (AssetUpload): The multipart body of an asset upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AssetUploaded | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        asset_id=asset_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    body: UseUpload | AssetUpload | Unset = UNSET,
) -> AssetUploaded | ErrorEnvelope | None:
    """Uploads an announced asset's bytes, once: only its proposer may, and the bytes must agree with
    the announced type. Moves the asset to AWAITING_APPROVAL.

    Args:
        space_id (str):
        asset_id (str):
        body (UseUpload): A finished resumable upload used in place of the file part.
        body (AssetUpload): The multipart body of an asset upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AssetUploaded | ErrorEnvelope
    """

    return sync_detailed(
        space_id=space_id,
        asset_id=asset_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    body: UseUpload | AssetUpload | Unset = UNSET,
) -> Response[AssetUploaded | ErrorEnvelope]:
    """Uploads an announced asset's bytes, once: only its proposer may, and the bytes must agree with
    the announced type. Moves the asset to AWAITING_APPROVAL.

    Args:
        space_id (str):
        asset_id (str):
        body (UseUpload): A finished resumable upload used in place of the file part.
        body (AssetUpload): The multipart body of an asset upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AssetUploaded | ErrorEnvelope]
    """

    kwargs = _get_kwargs(
        space_id=space_id,
        asset_id=asset_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    space_id: str,
    asset_id: str,
    *,
    client: AuthenticatedClient,
    body: UseUpload | AssetUpload | Unset = UNSET,
) -> AssetUploaded | ErrorEnvelope | None:
    """Uploads an announced asset's bytes, once: only its proposer may, and the bytes must agree with
    the announced type. Moves the asset to AWAITING_APPROVAL.

    Args:
        space_id (str):
        asset_id (str):
        body (UseUpload): A finished resumable upload used in place of the file part.
        body (AssetUpload): The multipart body of an asset upload, for the OpenAPI document.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AssetUploaded | ErrorEnvelope
    """

    return (
        await asyncio_detailed(
            space_id=space_id,
            asset_id=asset_id,
            client=client,
            body=body,
        )
    ).parsed
