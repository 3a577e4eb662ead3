"""The files of a multipart upload (`Trellis.upload_attachments`, `upload_asset`, `upload_avatar`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import BinaryIO


@dataclass
class UploadFile:
    """A file for an upload: its bytes (or an open binary file), its name and its type."""

    content: bytes | BinaryIO
    name: str
    content_type: str = "application/octet-stream"


@dataclass
class AttachmentFile(UploadFile):
    """One file for a form instance's file field."""

    field_id: str = field(default="", kw_only=True)
