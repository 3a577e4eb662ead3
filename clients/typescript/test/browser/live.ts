// What the live-updates test's page runs (bundled by esbuild in live.test.ts): from its own origin, it
// opens the user's event stream through the TypeScript client's `openEvents` (a ticket, then an
// `EventSource`) and keeps what it sees in `window.trellisLive` for the test to read. The server, license
// key and session token come in the page's fragment as JSON. `window.trellisLiveDrop()` fires an `error`
// on the current source, as a dropped connection would.
import { createTrellis, type LiveEvent, openEvents, TrellisError } from "../../src/index.js";

export interface LivePage {
  /** How many times a stream opened. */
  opened: number;
  events: LiveEvent[];
  /** The URL of each `EventSource` made, in order. */
  urls: string[];
  /** Set when `onClose` was called: the refused ticket's status and code, if any. */
  closed?: { status?: number; code?: string };
  /** Set when `openEvents` rejected. */
  error?: string;
}

interface LiveConfig {
  base: string;
  licenseKey: string;
  token: string;
}

declare global {
  interface Window {
    trellisLive?: LivePage;
    trellisLiveDrop?: () => void;
  }
}

const config = JSON.parse(decodeURIComponent(location.hash.slice(1))) as LiveConfig;
const state: LivePage = { opened: 0, events: [], urls: [] };
window.trellisLive = state;

// The browser's own EventSource, recording each URL and keeping each source for trellisLiveDrop.
const sources: EventSource[] = [];
class RecordedEventSource extends EventSource {
  constructor(url: string) {
    super(url);
    state.urls.push(url);
    sources.push(this);
  }
}
window.trellisLiveDrop = () => void sources.at(-1)?.dispatchEvent(new Event("error"));

const trellis = createTrellis({ baseUrl: config.base, licenseKey: config.licenseKey, token: config.token });
openEvents(trellis, {
  EventSource: RecordedEventSource,
  retryMs: 100,
  onEvent: (event) => state.events.push(event),
  onOpen: () => state.opened++,
  onClose: (error) => {
    state.closed = error instanceof TrellisError ? { status: error.status, code: error.code } : {};
  },
}).catch((error: unknown) => {
  state.error = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
});
