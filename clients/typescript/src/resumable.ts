// Resumable uploads (tus 1.0.0): the single requests (create, HEAD, PATCH, DELETE) and
// `resumableUpload`, which drives them and, after a failure, resumes from the offset the server
// holds.
import type { Trellis } from "./client.js";
import { TrellisError } from "./errors.js";
import type { components } from "./schema.js";

const tusHeaders = { "Tus-Resumable": "1.0.0" } as const;

/** A new resumable upload's answer: `{uploadId, offset, length, expiresAt}`. */
export type UploadCreated = components["schemas"]["UploadCreated"];

/** What a resumable upload is created with. */
export interface NewUpload {
  /** The whole length in bytes (at least 1). */
  length: number;
  /** Kept as the file's name (`Upload-Metadata` `filename`). */
  filename?: string;
  /** Kept as the file's type (`Upload-Metadata` `contentType`). */
  contentType?: string;
}

/** Where an upload stands (`HEAD`): bytes received, whole length, and when it expires (an HTTP date). */
export interface UploadStatus {
  offset: number;
  length: number;
  expires: string | undefined;
}

/** `POST /v0/media/uploads` (tus creation): an empty upload of `length` bytes to `PATCH` into. */
export async function createUpload(trellis: Trellis, upload: NewUpload, signal?: AbortSignal): Promise<UploadCreated> {
  const headers: Record<string, string> = { ...tusHeaders, "Upload-Length": String(upload.length) };
  const metadata = Object.entries({ filename: upload.filename, contentType: upload.contentType })
    .filter((entry): entry is [string, string] => !!entry[1])
    .map(([key, value]) => `${key} ${base64(value)}`)
    .join(",");
  if (metadata) headers["Upload-Metadata"] = metadata;
  const response = await trellis.fetch("/v0/media/uploads", withSignal({ method: "POST", headers }, signal));
  if (!response.ok) throw await TrellisError.read(response);
  return (await response.json()) as UploadCreated;
}

/** `HEAD /v0/media/uploads/{uploadId}`: where to resume. 404 unknown (or another user's), 410 expired. */
export async function uploadStatus(trellis: Trellis, uploadId: string, signal?: AbortSignal): Promise<UploadStatus> {
  const response = await trellis.fetch(uploadPath(uploadId), withSignal({ method: "HEAD", headers: tusHeaders }, signal));
  if (!response.ok) {
    // A HEAD answer has no body: the code comes from the status.
    const known: Record<number, [string, number]> = { 404: ["NOT_FOUND", 804], 410: ["UPLOAD_EXPIRED", 820], 412: ["PRECONDITION_FAILED", 817] };
    const error = TrellisError.from(response, undefined);
    const [code, numeric] = known[response.status] ?? [error.code, error.numeric];
    throw new TrellisError(error.status, code, numeric, error.message, [], error.requestId, error.retryAfter);
  }
  return {
    offset: headerNumber(response, "Upload-Offset"),
    length: headerNumber(response, "Upload-Length"),
    expires: response.headers.get("Upload-Expires") ?? undefined,
  };
}

/**
 * `PATCH /v0/media/uploads/{uploadId}`: writes `bytes` at `offset` (which must be the upload's offset
 * now: 409 otherwise) and answers the new offset.
 */
export async function appendUpload(trellis: Trellis, uploadId: string, offset: number, bytes: Blob, signal?: AbortSignal): Promise<number> {
  const headers = { ...tusHeaders, "Upload-Offset": String(offset), "Content-Type": "application/offset+octet-stream" };
  const response = await trellis.fetch(uploadPath(uploadId), withSignal({ method: "PATCH", headers, body: bytes }, signal));
  if (!response.ok) throw await TrellisError.read(response);
  return headerNumber(response, "Upload-Offset");
}

/** `DELETE /v0/media/uploads/{uploadId}` (tus termination): the upload and its bytes are removed. */
export async function terminateUpload(trellis: Trellis, uploadId: string): Promise<void> {
  const response = await trellis.fetch(uploadPath(uploadId), { method: "DELETE", headers: tusHeaders });
  if (!response.ok) throw await TrellisError.read(response);
}

/** What `resumableUpload` may be given. */
export interface ResumableUploadOptions {
  /** The file's name; a `File`'s own name by default. */
  filename?: string;
  /** The file's type; the blob's `type` by default. */
  contentType?: string;
  /** Go on with this upload (made earlier, e.g. before a restart) instead of creating one: HEAD says where. */
  uploadId?: string;
  /** Bytes per `PATCH`; 8 MiB by default. */
  chunkBytes?: number;
  /** Failed requests in a row before giving up; 5 by default. */
  retries?: number;
  /** First wait after a failure, doubled after each one up to 30 s (or the answer's `Retry-After`); 500 ms by default. */
  retryDelayMs?: number;
  /** The new upload's id, before any byte is sent: keep it to resume after a restart. */
  onCreated?: (uploadId: string) => void;
  /** After each stored chunk. */
  onProgress?: (offset: number, length: number) => void;
  signal?: AbortSignal;
}

/** A finished resumable upload: use it once with `attachUploads` or `uploadAsset(..., {uploadId})`. */
export interface FinishedUpload {
  uploadId: string;
  length: number;
}

/**
 * Uploads `file` resumably (tus 1.0.0): creates the upload (or takes `options.uploadId`), sends it in
 * `PATCH`es of `chunkBytes`, and after a failed request (a dropped connection, 409, 429, 5xx) waits,
 * asks `HEAD` how many bytes the server holds and goes on from there. A refusal that retrying cannot
 * change (400, 404, 410 expired, 413, 415) throws at once; so does the last failure once `retries`
 * requests in a row have failed.
 */
export async function resumableUpload(trellis: Trellis, file: Blob, options: ResumableUploadOptions = {}): Promise<FinishedUpload> {
  const { signal } = options;
  const length = file.size;
  const chunkBytes = Math.max(1, options.chunkBytes ?? 8 * 1024 * 1024);
  const retries = options.retries ?? 5;
  const firstDelay = options.retryDelayMs ?? 500;
  let uploadId = options.uploadId;
  let offset: number | undefined; // undefined: ask HEAD
  if (uploadId === undefined) {
    const named = (file as { name?: unknown }).name; // a File's
    const filename = options.filename ?? (typeof named === "string" ? named : undefined);
    const created = await createUpload(trellis, { length, filename, contentType: options.contentType ?? (file.type || undefined) }, signal);
    uploadId = created.uploadId;
    offset = created.offset;
    options.onCreated?.(uploadId);
  }
  let failures = 0;
  for (;;) {
    try {
      if (offset === undefined) {
        const status = await uploadStatus(trellis, uploadId, signal);
        if (status.length !== length) throw new Error(`upload ${uploadId} is ${status.length} bytes long, the file ${length}`);
        offset = status.offset;
      }
      if (offset >= length) return { uploadId, length };
      offset = await appendUpload(trellis, uploadId, offset, file.slice(offset, Math.min(offset + chunkBytes, length)), signal);
      failures = 0;
      options.onProgress?.(offset, length);
    } catch (error) {
      if (!retryable(error) || signal?.aborted || ++failures > retries) throw error;
      // The failed request may have stored some of its bytes: HEAD tells.
      offset = undefined;
      const backoff = Math.min(firstDelay * 2 ** (failures - 1), 30_000);
      await delay(error instanceof TrellisError && error.retryAfter !== undefined ? error.retryAfter * 1000 : backoff, signal);
    }
  }
}

/** Worth another try: a network failure (fetch's `TypeError`), a busy upload (409), 423, 429, 5xx. */
function retryable(error: unknown): boolean {
  if (error instanceof TrellisError) return [409, 423, 429].includes(error.status) || error.status >= 500;
  return error instanceof TypeError;
}

function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

function uploadPath(uploadId: string): string {
  return `/v0/media/uploads/${encodeURIComponent(uploadId)}`;
}

function withSignal(init: RequestInit, signal: AbortSignal | undefined): RequestInit {
  return signal ? { ...init, signal } : init;
}

function headerNumber(response: Response, name: string): number {
  const value = Number(response.headers.get(name) ?? Number.NaN);
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TrellisError(response.status, `HTTP_${response.status}`, 0, `the answer has no ${name}`, [], response.headers.get("X-Request-Id") ?? undefined);
  }
  return value;
}

/** Base64 of UTF-8 text, as `Upload-Metadata` values are (in a browser too: no Buffer). */
function base64(text: string): string {
  let binary = "";
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
