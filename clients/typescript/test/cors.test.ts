// CORS in a real browser: headless Chromium (Debian's, driven by playwright-core) loads a page from
// another origin that signs in and lists spaces through @trellis/client (bundled by esbuild), and the
// same page from an origin the server does not list, whose requests the browser must refuse.
//
// scripts/clients starts the server with `[http] cors_origins = ["http://127.0.0.1:$TRELLIS_PAGE_PORT"]`
// and runs `node --test dist/test/cors.test.js` with:
//   TRELLIS_BASE        the server, e.g. http://127.0.0.1:40123
//   TRELLIS_DATA        its data directory (license.key, outbox/)
//   TRELLIS_PAGE_PORT   the port of the listed origin; TRELLIS_OTHER_PORT one not listed
//   CHROMIUM            the browser (default /usr/bin/chromium)
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";

import { build } from "esbuild";
import { chromium, type Browser } from "playwright-core";

import { createTrellis, ok, signUp } from "../src/index.js";
import type { PageResult } from "./browser/page.js";
import { pinFromOutbox } from "./outbox.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/clients check sets it)`);
  return value;
}

const base = env("TRELLIS_BASE");
const data = env("TRELLIS_DATA");
const pagePort = Number(env("TRELLIS_PAGE_PORT"));
const otherPort = Number(env("TRELLIS_OTHER_PORT"));
// The package's root, from dist/test/ where tsc puts this file.
const root = fileURLToPath(new URL("../../", import.meta.url));

let browser: Browser;
const servers: Server[] = [];
let user: { login: string; password: string; spaces: string[] };
let licenseKey: string;

/** Serves the page and its bundle on 127.0.0.1:port: another origin than the API's. */
async function servePage(port: number, files: Record<string, { type: string; body: string }>): Promise<void> {
  const server = createServer((request, response) => {
    const file = files[new URL(request.url ?? "/", "http://127.0.0.1").pathname];
    if (!file) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { "Content-Type": file.type, "Cache-Control": "no-store" }).end(file.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  servers.push(server);
}

/** Opens the page from `port`, waits for its outcome and returns it. */
async function visit(port: number): Promise<PageResult> {
  const page = await browser.newPage();
  const console_: string[] = [];
  page.on("console", (message) => console_.push(`${message.type()}: ${message.text()}`));
  page.on("pageerror", (error) => console_.push(`pageerror: ${error.message}`));
  try {
    const config = { base, licenseKey, login: user.login, password: user.password };
    await page.goto(`http://127.0.0.1:${port}/index.html#${encodeURIComponent(JSON.stringify(config))}`);
    await page.waitForFunction(() => window.trellisResult !== undefined, null, { timeout: 30_000 });
    const result = await page.evaluate(() => window.trellisResult);
    assert.ok(result, "the page reported nothing");
    return result;
  } catch (error) {
    console.error(`the page on port ${port} logged:\n  ${console_.join("\n  ")}`);
    throw error;
  } finally {
    await page.close();
  }
}

before(async () => {
  licenseKey = (await readFile(join(data, "license.key"), "utf8")).trim();
  // A user with one space, made over plain HTTP from Node (no CORS there).
  const suffix = randomBytes(4).toString("hex");
  const handle = `browser_${suffix}`;
  const password = "correct horse 42";
  const trellis = createTrellis({ baseUrl: base, licenseKey });
  await signUp(trellis, { email: `${handle}@example.org`, handle, fullName: "Browser Test", displayName: "Browser" }, password, (email) =>
    pinFromOutbox(data, email),
  );
  // Two spaces, so the page's paging (one item a page) follows a cursor.
  const spaces = [`browser-${suffix}-a`, `browser-${suffix}-b`];
  for (const name of spaces) {
    await ok(trellis.api.POST("/v0/spaces", { body: { name, displayName: "Browser", summary: "Seen from another origin" } }));
  }
  user = { login: handle, password, spaces };

  const bundle = await build({
    entryPoints: [join(root, "test/browser/page.ts")],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
    logLevel: "warning",
  });
  const script = bundle.outputFiles[0];
  assert.ok(script, "esbuild wrote no bundle");
  const files = {
    "/index.html": { type: "text/html; charset=utf-8", body: await readFile(join(root, "test/browser/index.html"), "utf8") },
    "/page.js": { type: "text/javascript; charset=utf-8", body: script.text },
  };
  await servePage(pagePort, files);
  await servePage(otherPort, files);

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    // Only 127.0.0.1 is reached: no proxy, no background traffic of the browser's own.
    args: ["--no-proxy-server", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

test("a page from a listed origin signs in and lists spaces through the client", async () => {
  const result = await visit(pagePort);
  assert.equal(result.error, undefined, `the page failed: ${result.errorName}: ${result.error}`);
  assert.equal(result.ok, true);
  assert.equal(result.origin, `http://127.0.0.1:${pagePort}`);
  assert.deepEqual([...(result.spaces ?? [])].sort(), user.spaces);
  // Exposed headers are readable across origins.
  assert.match(result.requestId ?? "", /.+/, "X-Request-Id is not exposed");
  assert.match(result.etag ?? "", /^"/, "ETag is not exposed");
});

test("a page from an origin not listed is refused by the browser", async () => {
  const result = await visit(otherPort);
  assert.equal(result.ok, false, "a request from an origin not listed succeeded");
  assert.equal(result.origin, `http://127.0.0.1:${otherPort}`);
  // The browser refuses the answer itself: fetch rejects, no HTTP status reaches the page.
  assert.equal(result.errorName, "TypeError", `expected a refused fetch, got ${result.errorName}: ${result.error}`);
});
