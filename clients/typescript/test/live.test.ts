// Live updates in a real browser: headless Chromium (Debian's, driven by playwright-core) loads a page
// from the listed origin that opens the user's event stream through @trellis/client's `openEvents` (a
// ticket from `POST /v0/events/ticket`, then `EventSource` on `/v0/events?ticket=...`). Another user
// sends a message over HTTP from Node, and the page must hear `message.created` and `unread.changed`;
// after a dropped connection it must reconnect with a fresh ticket and the last id seen, and after a
// logout it must stop with the refused ticket's 401.
//
// scripts/clients runs `node --test dist/test/live.test.js` after the CORS test, on the same server,
// with the same variables: TRELLIS_BASE, TRELLIS_DATA, TRELLIS_PAGE_PORT (the origin the server lists)
// and CHROMIUM (default /usr/bin/chromium).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import { chromium, type Browser, type Page } from "playwright-core";

import { createTrellis, type LiveEvent, ok, signUp, type Trellis } from "../src/index.js";
import type { LivePage } from "./browser/live.js";
import { pinFromOutbox } from "./outbox.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/clients check sets it)`);
  return value;
}

const base = env("TRELLIS_BASE");
const data = env("TRELLIS_DATA");
const pagePort = Number(env("TRELLIS_PAGE_PORT"));
// The package's root, from dist/test/ where tsc puts this file.
const root = fileURLToPath(new URL("../../", import.meta.url));

let browser: Browser;
let server: Server;
let page: Page;
const pageLog: string[] = [];
let licenseKey: string;
let sender: Trellis;
let recipient: { handle: string; token: string };

async function newUser(prefix: string): Promise<{ trellis: Trellis; handle: string }> {
  const handle = `${prefix}_${randomBytes(4).toString("hex")}`;
  const trellis = createTrellis({ baseUrl: base, licenseKey });
  const details = { email: `${handle}@example.org`, handle, fullName: "Live Test", displayName: prefix };
  await signUp(trellis, details, "correct horse 42", (email) => pinFromOutbox(data, email));
  return { trellis, handle };
}

/** The page's state once `until` holds for it, waiting up to 30 seconds. */
async function pageState(until: string): Promise<LivePage> {
  try {
    await page.waitForFunction(`(() => { const live = window.trellisLive; return !!live && (${until}); })()`, null, {
      timeout: 30_000,
    });
  } catch (error) {
    const state = await page.evaluate(() => window.trellisLive).catch(() => undefined);
    console.error(`waiting for ${until}; the page holds ${JSON.stringify(state)} and logged:\n  ${pageLog.join("\n  ")}`);
    throw error;
  }
  const state = await page.evaluate(() => window.trellisLive);
  assert.ok(state, "the page reported nothing");
  assert.equal(state.error, undefined, `openEvents failed: ${state.error}`);
  return state;
}

/** Sends a message from the sender to the recipient; answers its ids. */
async function message(subject: string) {
  return ok(sender.api.POST("/v0/messages", { body: { to: recipient.handle, subject, body: "Seen live?" } }));
}

/** The events after the first `skip`, each as `[name, data]`, for comparing. */
function named(events: LiveEvent[], skip = 0): [string, unknown][] {
  return events.slice(skip).map((event) => [event.name, event.data]);
}

before(async () => {
  licenseKey = (await readFile(join(data, "license.key"), "utf8")).trim();
  sender = (await newUser("sender")).trellis;
  const listener = await newUser("live");
  recipient = { handle: listener.handle, token: listener.trellis.token ?? "" };

  const bundle = await build({
    entryPoints: [join(root, "test/browser/live.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const script = bundle.outputFiles[0];
  assert.ok(script, "esbuild wrote no bundle");
  const files: Record<string, { type: string; body: string }> = {
    "/live.html": { type: "text/html; charset=utf-8", body: await readFile(join(root, "test/browser/live.html"), "utf8") },
    "/live.js": { type: "text/javascript; charset=utf-8", body: script.text },
  };
  server = createServer((request, response) => {
    const file = files[new URL(request.url ?? "/", "http://127.0.0.1").pathname];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "Content-Type": file.type, "Cache-Control": "no-store" }).end(file.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(pagePort, "127.0.0.1", resolve);
  });

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    // Only 127.0.0.1 is reached: no proxy, no background traffic of the browser's own.
    args: ["--no-proxy-server", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
  page = await browser.newPage();
  page.on("console", (entry) => pageLog.push(`${entry.type()}: ${entry.text()}`));
  page.on("pageerror", (error) => pageLog.push(`pageerror: ${error.message}`));
  const config = { base, licenseKey, token: recipient.token };
  await page.goto(`http://127.0.0.1:${pagePort}/live.html#${encodeURIComponent(JSON.stringify(config))}`);
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
});

test("a page opens the stream with a ticket and hears a message sent to its user", async () => {
  // Open (the server subscribed it before answering), with no id to resume from: nothing is replayed.
  let state = await pageState("live.opened >= 1");
  assert.equal(state.urls.length, 1);
  const url = new URL(state.urls[0] ?? "");
  assert.equal(url.origin + url.pathname, `${base}/v0/events`);
  assert.match(url.searchParams.get("ticket") ?? "", /.+/);
  assert.equal(url.searchParams.get("lastEventId"), null);

  const sent = await message("Live one");
  state = await pageState("live.events.length >= 2");
  assert.deepEqual(named(state.events), [
    ["message.created", { threadId: sent.threadId, messageId: sent.messageId, unread: 1 }],
    ["unread.changed", { unread: 1 }],
  ]);
  // Ids increase.
  const ids = state.events.map((event) => Number(event.id));
  assert.ok(ids.every((id, i) => id > 0 && (i === 0 || id > (ids[i - 1] ?? 0))), `ids ${ids}`);
});

test("after an error it reconnects with a fresh ticket and the last id seen, missing nothing", async () => {
  let state = await pageState("live.events.length >= 2");
  const seen = state.events.length;
  const lastId = state.events.at(-1)?.id;
  await page.evaluate(() => window.trellisLiveDrop?.());
  state = await pageState("live.opened >= 2");
  assert.equal(state.urls.length, 2);
  const [first, second] = state.urls.map((url) => new URL(url).searchParams);
  assert.notEqual(second?.get("ticket"), first?.get("ticket"), "the used ticket was sent again");
  assert.equal(second?.get("lastEventId"), lastId);

  const sent = await message("Live two");
  state = await pageState(`live.events.length >= ${seen + 2}`);
  // Resumed after the last id: no `reset`, nothing again, the new message and its count.
  assert.deepEqual(named(state.events, seen), [
    ["message.created", { threadId: sent.threadId, messageId: sent.messageId, unread: 2 }],
    ["unread.changed", { unread: 2 }],
  ]);
});

test("a logout ends the stream: the next ticket is refused and onClose says so", async () => {
  const listener = createTrellis({ baseUrl: base, licenseKey, token: recipient.token });
  const { response } = await listener.api.POST("/v0/auth/logout");
  assert.ok(response.ok, `logout answered ${response.status}`);
  const state = await pageState("live.closed !== undefined");
  assert.deepEqual(state.closed, { status: 401, code: "UNAUTHENTICATED" });
  assert.equal(state.urls.length, 2, "it opened another stream after the ticket was refused");
});
