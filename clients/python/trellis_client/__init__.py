"""The hand-written part of the Trellis Python client: a thin layer over `trellis_api`.

`trellis_api` is generated from the server's OpenAPI document by openapi-python-client
(`scripts/clients generate`; never edit it). Its operations take a `client`; `Trellis` makes that
client carry the license key and the session, runs operations with errors raised as one
`TrellisError` and answers typed as the generated models, and adds what a person needs help with:
sign-up with its PIN, paging, uploads (multipart and resumable), streamed exports, module routes,
and live updates (`events()`, Server-Sent Events read with httpx-sse).

    from trellis_api.api.spaces import list_spaces
    from trellis_client import Trellis

    trellis = Trellis("http://127.0.0.1:8080", license_key)
    trellis.login("ann", "correct horse 42")
    for space in trellis.paginate(list_spaces):
        print(space.name)
"""

# The package's modules, one part each: answers (what `call_detailed` gives), errors, uploads (multipart
# files), resumable (tus), exports, live (events) and client (`Trellis`, whose methods use the others).
from .answers import Answer, Detailed, Operation, Page, Parsed
from .client import Trellis
from .errors import ErrorDetail, TrellisError
from .exports import Export
from .live import LIVE_EVENT_MODELS, LiveEvent, LiveStream
from .resumable import ResumableUpload
from .uploads import AttachmentFile, UploadFile

__all__ = [
    "LIVE_EVENT_MODELS",
    "Answer",
    "AttachmentFile",
    "Detailed",
    "ErrorDetail",
    "Export",
    "LiveEvent",
    "LiveStream",
    "Operation",
    "Page",
    "Parsed",
    "ResumableUpload",
    "Trellis",
    "TrellisError",
    "UploadFile",
]
