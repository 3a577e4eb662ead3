// The hand-written part of @trellis/client: a thin layer over openapi-fetch and the types that
// openapi-typescript generates into ./schema.ts (`scripts/clients generate`; never edit that file).
// Every typed call goes through `trellis.api` (openapi-fetch: `api.GET("/v0/spaces", ...)`); this
// file adds what a person needs help with: the two headers, sign-up with its PIN, paging, uploads,
// module routes, and errors as one typed `TrellisError`.
import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "./schema.js";

export type { components, paths };

/** The typed openapi-fetch client over every documented route. */
export type Api = Client<paths>;

/** What `createTrellis` needs: where the server is and the deployment's license key. */
export interface TrellisOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8080` (the paths start with `/v0`). */
  baseUrl: string;
  /** Sent as `X-License-Key` on every request. */
  licenseKey: string;
  /** A session token from sign-up or login, sent as `Authorization: Bearer`. */
  token?: string;
  /** Another fetch (tests, proxies); `globalThis.fetch` by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A client: `api` for the typed calls; `token` may be set or cleared at any time. */
export interface Trellis {
  readonly api: Api;
  readonly baseUrl: string;
  readonly licenseKey: string;
  /** The session token the next requests carry, if any; `signUp` and `login` set it. */
  token: string | undefined;
  /** A fetch that adds the license key and the session, for what the document does not type. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Creates a client whose every request carries `X-License-Key` and, once known, the session. */
export function createTrellis(options: TrellisOptions): Trellis {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<paths>({ baseUrl, fetch: send });
  const trellis: Trellis = {
    api,
    baseUrl,
    licenseKey: options.licenseKey,
    token: options.token,
    fetch(path, init = {}) {
      const request = new Request(baseUrl + path, init);
      authorize(request.headers);
      return send(request);
    },
  };
  function authorize(headers: Headers): void {
    headers.set("X-License-Key", trellis.licenseKey);
    if (trellis.token) {
      headers.set("Authorization", `Bearer ${trellis.token}`);
    }
  }
  api.use({
    onRequest({ request }) {
      authorize(request.headers);
      return request;
    },
  });
  return trellis;
}

/** One problem of a failed request: a JSON Pointer into the body (or `query.<name>`), a code, a message. */
export interface ErrorDetail {
  path: string;
  code: string;
  message: string;
}

/** A non-2xx answer, read from the error envelope `{"error": {code, numeric, message, details, requestId}}`. */
export class TrellisError extends Error {
  override readonly name = "TrellisError";

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The contract's code, e.g. `VALIDATION_FAILED`; `HTTP_<status>` when the body was no envelope. */
    readonly code: string,
    /** The code's number, e.g. 800; 0 when the body was no envelope. */
    readonly numeric: number,
    message: string,
    /** Every problem found, for validation failures; empty otherwise. */
    readonly details: ErrorDetail[],
    /** The request's id (`X-Request-Id`), for the server's log. */
    readonly requestId: string | undefined,
  ) {
    super(`${status} ${code}: ${message}`);
  }

  /** The error a failed answer stands for; `body` is its parsed JSON, if any. */
  static from(response: Response, body: unknown): TrellisError {
    const error = isObject(body) && isObject(body.error) ? body.error : undefined;
    const requestId = str(error?.requestId) ?? response.headers.get("X-Request-Id") ?? undefined;
    if (!error || typeof error.code !== "string") {
      const text = typeof body === "string" && body ? body : response.statusText || "request failed";
      return new TrellisError(response.status, `HTTP_${response.status}`, 0, text, [], requestId);
    }
    const details = Array.isArray(error.details)
      ? error.details.filter(isObject).map((d) => ({ path: str(d.path) ?? "", code: str(d.code) ?? "", message: str(d.message) ?? "" }))
      : [];
    const numeric = typeof error.numeric === "number" ? error.numeric : 0;
    return new TrellisError(response.status, error.code, numeric, str(error.message) ?? "", details, requestId);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** What an openapi-fetch call resolves to. */
interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a thrown `TrellisError`:
 * `const me = await ok(trellis.api.GET("/v0/users/me"))`.
 */
export async function ok<T>(call: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    throw TrellisError.from(response, error);
  }
  return data as T;
}

/** The JSON request body of an operation: `RequestBody<"/v0/spaces", "post">`. */
export type RequestBody<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;

/** The details a sign-up starts with: `{email, handle, fullName, displayName}`. */
export type SignUpDetails = RequestBody<"/v0/auth/sign-up/start", "post">;

/**
 * Signs a new user up: starts the sign-up, asks `getPin` for the PIN the server mailed, verifies it
 * and sets the password. The client carries the new session from then on; its answer is returned.
 */
export async function signUp(
  trellis: Trellis,
  details: SignUpDetails,
  password: string,
  getPin: (email: string) => string | Promise<string>,
) {
  const { signupToken } = await ok(trellis.api.POST("/v0/auth/sign-up/start", { body: details }));
  const pin = await getPin(details.email);
  await ok(trellis.api.POST("/v0/auth/sign-up/verify-pin", { body: { signupToken, pin } }));
  const session = await ok(trellis.api.POST("/v0/auth/sign-up/complete", { body: { signupToken, password } }));
  trellis.token = session.sessionToken;
  return session;
}

/** Logs in with the handle or the e-mail; the client carries the session from then on. */
export async function login(trellis: Trellis, login: string, password: string) {
  const session = await ok(trellis.api.POST("/v0/auth/login", { body: { login, password } }));
  trellis.token = session.sessionToken;
  return session;
}

/** One page of any list route: the envelope `{items, nextCursor}`. */
interface Page<Item> {
  items: Item[];
  nextCursor?: string | null;
}

/**
 * Every item of a list route, page after page, following `nextCursor`:
 * `for await (const space of paginate((cursor) => trellis.api.GET("/v0/spaces", { params: { query: { cursor } } })))`.
 * A failed page throws `TrellisError`.
 */
export async function* paginate<Item>(
  page: (cursor: string | undefined) => Promise<Outcome<Page<Item>>>,
): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const data = await ok(page(cursor));
    yield* data.items;
    cursor = data.nextCursor ?? undefined;
  } while (cursor);
}

/** A file for an upload; `name` is the part's file name. */
export interface UploadFile {
  file: Blob;
  name: string;
}

/** One file for a form instance's file field. */
export interface AttachmentFile extends UploadFile {
  fieldId: string;
}

/** The query of an attachment upload: the workflow view an instance is reached through, if any. */
export type AttachmentQuery = NonNullable<paths["/v0/media/forms/{formId}/attachments"]["post"]["parameters"]["query"]>;

/**
 * Uploads files to file fields of a form instance, as one multipart request (all or nothing):
 * `fieldIds` and `files` parts paired by position.
 */
export async function uploadAttachments(trellis: Trellis, formId: string, files: AttachmentFile[], query: AttachmentQuery = {}) {
  const form = new FormData();
  for (const { fieldId, file, name } of files) {
    form.append("fieldIds", fieldId);
    form.append("files", file, name);
  }
  return ok(
    trellis.api.POST("/v0/media/forms/{formId}/attachments", {
      params: { path: { formId }, query },
      body: form as never,
    }),
  );
}

/** Uploads the bytes of an announced asset (`POST /v0/spaces/{spaceId}/assets` announced it). */
export async function uploadAsset(trellis: Trellis, spaceId: string, assetId: string, upload: UploadFile) {
  const form = new FormData();
  form.append("file", upload.file, upload.name);
  return ok(
    trellis.api.POST("/v0/media/spaces/{spaceId}/assets/{assetId}", {
      params: { path: { spaceId, assetId } },
      body: form as never,
    }),
  );
}

/** Sets the caller's avatar (PNG, JPEG, WebP or GIF). */
export async function uploadAvatar(trellis: Trellis, upload: UploadFile) {
  const form = new FormData();
  form.append("file", upload.file, upload.name);
  return ok(trellis.api.POST("/v0/media/users/me/avatar", { body: form as never }));
}

/**
 * Calls a module's own route, `/v0/spaces/{spaceId}/modules/{moduleId}/{path}`, with any method
 * and a JSON body; the module defines the path and the answer. A failure throws `TrellisError`.
 */
export async function callModule(
  trellis: Trellis,
  spaceId: string,
  moduleId: string,
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE",
  path: string,
  body?: unknown,
): Promise<unknown> {
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { "Content-Type": "application/json" };
  }
  const url = `/v0/spaces/${encodeURIComponent(spaceId)}/modules/${encodeURIComponent(moduleId)}/${path.replace(/^\/+/, "")}`;
  const response = await trellis.fetch(url, init);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: kept as text
  }
  if (!response.ok) {
    throw TrellisError.from(response, parsed);
  }
  return parsed;
}

// --- live updates (Server-Sent Events) ---

type Schemas = components["schemas"];

/** Each event of `GET /v0/events` by name, with its `data:`; `reset` means "read again what you show". */
export interface LiveEventData {
  "message.created": Schemas["LiveMessageCreated"];
  "unread.changed": Schemas["LiveUnreadChanged"];
  "comment.created": Schemas["LiveCommentCreated"];
  "asset.changed": Schemas["LiveAssetChanged"];
  "invite.created": Schemas["LiveInviteCreated"];
  "registration.changed": Schemas["LiveRegistrationChanged"];
  "item.changed": Schemas["LiveItemChanged"];
  reset: Record<string, never>;
}

export type LiveEventName = keyof LiveEventData;

/** One event: `switch (event.name)` narrows `data` to that event's schema. */
export type LiveEvent = { [Name in LiveEventName]: { name: Name; id: string; data: LiveEventData[Name] } }[LiveEventName];

const liveEventNames: LiveEventName[] = [
  "message.created",
  "unread.changed",
  "comment.created",
  "asset.changed",
  "invite.created",
  "registration.changed",
  "item.changed",
  "reset",
];

/** A single-use ticket for `GET /v0/events?ticket=...`, valid 60 seconds: `{ticket, expiresAt}`. */
export async function eventTicket(trellis: Trellis) {
  return ok(trellis.api.POST("/v0/events/ticket"));
}

/** What `openEvents` needs besides the client. */
export interface OpenEventsOptions {
  /** Every event, in order (`reset` too). */
  onEvent: (event: LiveEvent) => void;
  /**
   * Resume after this event id (from an earlier stream): the missed events come first, or `reset` when
   * too many were missed. Without it the stream starts with the next event.
   */
  lastEventId?: string;
  /** The stream ended for good: the session or the license ended (a new ticket was refused), or `close()`. */
  onClose?: (error?: TrellisError) => void;
  /** Each time a stream opens (the first time, and after each reconnection). */
  onOpen?: () => void;
  /** The constructor to use (a polyfill, a test's); `globalThis.EventSource` by default. */
  EventSource?: new (url: string) => EventSource;
  /** First wait before a reconnection, doubled after each failure up to 30 s; 1000 ms by default. */
  retryMs?: number;
}

/** An open live stream. */
export interface LiveStream {
  /** The id of the last event received, to resume from later (`openEvents({lastEventId})`). */
  readonly lastEventId: string | undefined;
  /** Stops for good (`onClose` is called with no error). */
  close(): void;
}

/**
 * Opens the user's live updates in a browser: gets a ticket (`POST /v0/events/ticket`, with the
 * client's headers) and opens an `EventSource` on `/v0/events?ticket=...`. A ticket is single use, so
 * `EventSource`'s own retry cannot work: on `error` this closes the source, gets a fresh ticket and
 * reconnects with `lastEventId` (the last id seen), so missed events are replayed (or `reset` comes).
 * A refused ticket (401/403: logged out, license revoked) ends it and calls `onClose(error)`; other
 * failures are retried with a growing delay.
 *
 * Resolves once the first stream is open; rejects if the first ticket is refused or the first
 * stream does not open (the browser refused it, e.g. an origin the server does not list).
 */
export function openEvents(trellis: Trellis, options: OpenEventsOptions): Promise<LiveStream> {
  const Source = options.EventSource ?? globalThis.EventSource;
  if (typeof Source !== "function") {
    return Promise.reject(new Error("no EventSource here: pass options.EventSource (a browser has one)"));
  }
  const firstDelay = options.retryMs ?? 1000;
  let lastEventId = options.lastEventId;
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;
  let delay = firstDelay;

  const stream: LiveStream = {
    get lastEventId() {
      return lastEventId;
    },
    close: () => stop(),
  };
  function stop(error?: TrellisError): void {
    if (closed) return;
    closed = true;
    clearTimeout(timer);
    source?.close();
    options.onClose?.(error);
  }

  return new Promise<LiveStream>((resolve, reject) => {
    let first = true;
    function failFirst(error: unknown): void {
      first = false;
      closed = true;
      source?.close();
      reject(error);
    }
    function retry(): void {
      if (closed) return;
      timer = setTimeout(attempt, delay);
      delay = Math.min(delay * 2, 30_000);
    }
    async function connect(): Promise<void> {
      let ticket: string;
      try {
        ({ ticket } = await eventTicket(trellis));
      } catch (error) {
        if (first) return failFirst(error);
        const refused = error instanceof TrellisError && (error.status === 401 || error.status === 403);
        return refused ? stop(error) : retry();
      }
      if (closed) return;
      const query = new URLSearchParams({ ticket });
      if (lastEventId !== undefined) query.set("lastEventId", lastEventId);
      const current = new Source(`${trellis.baseUrl}/v0/events?${query}`);
      source = current;
      current.addEventListener("open", () => {
        delay = firstDelay;
        options.onOpen?.();
        if (first) {
          first = false;
          resolve(stream);
        }
      });
      current.addEventListener("error", () => {
        // The ticket is used up: never let EventSource reconnect with it.
        current.close();
        if (source !== current || closed) return;
        if (first) return failFirst(new Error("the event stream did not open"));
        retry();
      });
      for (const name of liveEventNames) {
        current.addEventListener(name, (message) => {
          const { data, lastEventId: id } = message as MessageEvent<string>;
          if (id) lastEventId = id;
          options.onEvent({ name, id, data: JSON.parse(data) } as LiveEvent);
        });
      }
    }
    function attempt(): void {
      connect().catch((error: unknown) => (first ? failFirst(error) : retry()));
    }
    attempt();
  });
}
