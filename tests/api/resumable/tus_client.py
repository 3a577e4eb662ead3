"""Uploads a file to Trellis with tuspy, the Python tus client, as an application would: in chunks,
dropping its uploader part-way (as after a lost connection) and resuming with a new one, which asks
the server for its offset (HEAD) before sending the rest.

Usage: tus_client.py BASE_URL LICENSE_KEY SESSION_TOKEN FILE CHUNK_SIZE CHUNKS_BEFORE_THE_DROP

Prints one JSON line: {"url", "pausedAt", "resumedAt", "offset"}. Run by tests/api/resumable/tus_client.rs
with the python of the virtualenv scripts/setup makes (~/.cache/trellis/tus-venv).
"""

import json
import sys

from tusclient.client import TusClient


def main() -> None:
    base_url, license_key, token, path, chunk_size, chunks_before_drop = sys.argv[1:]
    chunk_size = int(chunk_size)
    client = TusClient(
        base_url + "/v0/media/uploads",
        headers={"Authorization": "Bearer " + token, "X-License-Key": license_key},
    )

    # The first uploader: the creation (POST), then a few PATCHes, one step at a time.
    first = client.uploader(
        file_path=path,
        chunk_size=chunk_size,
        metadata={"filename": "resumed.bin", "filetype": "application/octet-stream"},
    )
    for _ in range(int(chunks_before_drop)):
        first.upload_chunk()
    url, paused_at = first.url, first.offset
    del first

    # A new uploader for the same URL, as a client that lost its connection makes: it starts from the
    # offset the server tells (HEAD), not from anything the first one remembered.
    resumed = client.uploader(file_path=path, url=url, chunk_size=chunk_size)
    resumed_at = resumed.offset
    resumed.upload()

    print(json.dumps({"url": url, "pausedAt": paused_at, "resumedAt": resumed_at, "offset": resumed.offset}))


if __name__ == "__main__":
    main()
