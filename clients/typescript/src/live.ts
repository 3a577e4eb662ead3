// Live updates (Server-Sent Events): a single-use ticket, then an `EventSource` on
// `GET /v0/events`, typed by event name and reconnected with a fresh ticket.
import { ok, type Trellis } from "./client.js";
import { TrellisError } from "./errors.js";
import type { components } from "./schema.js";

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

/**
 * What `openEvents` uses of an `EventSource`: the browser's, or a polyfill's (Node 20 has none: the
 * `eventsource` package's fits). Structural, so that no one implementation's typings are required.
 */
export interface EventSourceLike {
  addEventListener(type: string, listener: (event: { data?: unknown; lastEventId?: string }) => void): void;
  close(): void;
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
  EventSource?: new (url: string) => EventSourceLike;
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
  let source: EventSourceLike | undefined;
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
          const id = message.lastEventId ?? "";
          if (id) lastEventId = id;
          const data: unknown = JSON.parse(typeof message.data === "string" ? message.data : "{}");
          options.onEvent({ name, id, data } as LiveEvent);
        });
      }
    }
    function attempt(): void {
      connect().catch((error: unknown) => (first ? failFirst(error) : retry()));
    }
    attempt();
  });
}
