// `/docs` in a real browser: headless Chromium (Debian's, driven by playwright-core) opens Swagger UI
// as the server sends it, under its Content-Security-Policy, and uses it: "Authorize" with the license
// key and a session token, "Try it out" and "Execute" on `GET /v0/users/me`. The page must render and
// work with no policy violation and no script error, and keep no token in the browser's storage. Then a
// page from another origin puts `/docs/` in a frame, which the browser must refuse.
//
// scripts/clients starts the server and runs `node --test dist/test/docs.test.js` with:
//   TRELLIS_BASE   the server, e.g. http://127.0.0.1:40123
//   TRELLIS_DATA   its data directory (license.key, outbox/)
//   CHROMIUM       the browser (default /usr/bin/chromium)
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { chromium, type Browser, type Page } from "playwright-core";

import { createTrellis, signUp } from "../src/index.js";
import { pinFromOutbox } from "./outbox.js";

function env(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set (scripts/clients check sets it)`);
  return value;
}

const base = env("TRELLIS_BASE");
const data = env("TRELLIS_DATA");
const docsUrl = `${base}/docs/`;
// Generous bounds for a loaded machine: each is a wait for a condition, never a fixed sleep.
const wait = { timeout: 30_000 };

let browser: Browser;
let framer: Server | undefined;
let user: { handle: string; token: string; licenseKey: string };

/** What went wrong on a page: policy violations, script and console errors, failed requests, traffic elsewhere. */
interface Watch {
  problems: string[];
  /** Every console message, for the report when a check fails. */
  console: string[];
}

/**
 * Watches `page` from its first script on: a `securitypolicyviolation` event (reported to Node the
 * moment it fires, and kept in `window.trellisViolations`), a console error or any console message that
 * names the Content Security Policy, a page error, a request that failed or went anywhere but 127.0.0.1.
 */
async function watch(page: Page): Promise<Watch> {
  const seen: Watch = { problems: [], console: [] };
  await page.exposeFunction("trellisViolation", (violation: string) => seen.problems.push(`CSP violation: ${violation}`));
  await page.addInitScript(() => {
    const page = window as unknown as { trellisViolation: (violation: string) => void; trellisViolations: string[] };
    page.trellisViolations = [];
    // On the window, capturing: every violation of this document passes there first.
    window.addEventListener(
      "securitypolicyviolation",
      (event) => {
        const where = event.sourceFile ? ` at ${event.sourceFile}:${event.lineNumber}` : "";
        const violation = `${event.effectiveDirective} blocked ${event.blockedURI || "(inline)"}${where} ${event.sample}`.trim();
        page.trellisViolations.push(violation);
        void page.trellisViolation(violation);
      },
      true,
    );
  });
  page.on("console", (message) => {
    const line = `${message.type()}: ${message.text()}`;
    seen.console.push(line);
    if (message.type() === "error" || /content.security.policy|refused to/i.test(message.text())) seen.problems.push(`console ${line}`);
  });
  page.on("pageerror", (error) => seen.problems.push(`page error: ${error.message}`));
  page.on("requestfailed", (request) => seen.problems.push(`request failed: ${request.url()} ${request.failure()?.errorText ?? ""}`));
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.protocol !== "data:" && url.hostname !== "127.0.0.1") seen.problems.push(`request outside 127.0.0.1: ${request.url()}`);
  });
  return seen;
}

/** Runs `check`; when it throws, prints what the page logged first. */
async function reporting<T>(seen: Watch, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (error) {
    console.error(`the page logged:\n  ${seen.console.join("\n  ") || "(nothing)"}\nproblems:\n  ${seen.problems.join("\n  ") || "(none)"}`);
    throw error;
  }
}

before(async () => {
  const licenseKey = (await readFile(join(data, "license.key"), "utf8")).trim();
  // A user signed up over plain HTTP from Node; the page is given its session token, as a person would
  // paste it into "Authorize".
  const handle = `docs_${randomBytes(4).toString("hex")}`;
  const trellis = createTrellis({ baseUrl: base, licenseKey });
  await signUp(trellis, { email: `${handle}@example.org`, handle, fullName: "Docs Test", displayName: "Docs" }, "correct horse 42", (email) =>
    pinFromOutbox(data, email),
  );
  assert.ok(trellis.token, "sign-up gave no session token");
  user = { handle, token: trellis.token, licenseKey };

  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    // Only 127.0.0.1 is reached: no proxy, no background traffic of the browser's own.
    args: ["--no-proxy-server", "--disable-background-networking", "--disable-component-update", "--no-first-run"],
  });
});

after(async () => {
  await browser?.close();
  if (framer) await new Promise((resolve) => framer?.close(resolve));
});

test("/docs renders and tries GET /v0/users/me under its policy, keeping no token", async () => {
  // A context of its own: empty storage, so whatever is in localStorage afterwards, this page put there.
  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = await watch(page);
  try {
    await reporting(seen, async () => {
      await page.goto(docsUrl, wait);
      const operation = page.locator("#operations-users-get_me");
      await operation.waitFor(wait);
      assert.ok((await page.locator(".opblock").count()) > 10, "Swagger UI rendered few operations");
      assert.equal(await operation.locator(".opblock-summary-path").getAttribute("data-path"), "/v0/users/me");

      // "Authorize": both schemes the operation needs, each in its own form of the dialog.
      await page.locator(".auth-wrapper button.authorize").click();
      for (const [scheme, value] of [
        ["license", user.licenseKey],
        ["session", user.token],
      ] as const) {
        const form = page.locator(".modal-ux .auth-container").filter({ has: page.locator("h4 code", { hasText: new RegExp(`^${scheme}$`) }) });
        await form.locator("input").fill(value, wait);
        await form.locator("button.authorize").click();
        // An applied scheme offers "Logout" in place of "Authorize".
        await form.locator("button", { hasText: "Logout" }).waitFor(wait);
      }
      await page.locator(".modal-ux button.btn-done").first().click();
      await page.locator(".modal-ux").waitFor({ state: "detached", ...wait });
      await page.locator(".auth-wrapper button.authorize.locked").waitFor(wait);

      // "Try it out" (the server turns it on for every operation: then the button reads "Cancel"), "Execute".
      await operation.locator(".opblock-summary-control").click();
      const tryOut = operation.locator("button.try-out__btn");
      await tryOut.waitFor(wait);
      if ((await tryOut.textContent())?.trim() === "Try it out") await tryOut.click();
      await operation.locator("button.try-out__btn", { hasText: "Cancel" }).waitFor(wait);
      const answered = page.waitForResponse((response) => response.url() === `${base}/v0/users/me`, wait);
      answered.catch(() => undefined); // awaited below
      await operation.locator("button.execute").click();
      const answer = await answered;
      assert.equal(answer.status(), 200);
      assert.equal(await answer.request().headerValue("authorization"), `Bearer ${user.token}`);
      assert.equal(await answer.request().headerValue("x-license-key"), user.licenseKey);

      // The answer as Swagger UI shows it.
      const live = operation.locator(".live-responses-table tbody tr.response");
      await live.waitFor(wait);
      assert.equal((await live.locator(".response-col_status").textContent())?.trim(), "200");
      const body = (await live.locator(".response-col_description pre").first().textContent()) ?? "";
      assert.match(body, new RegExp(`"handle": "${user.handle}"`), `the rendered answer lacks the handle:\n${body}`);

      // persistAuthorization is off: no storage of the page holds the token (or the license key).
      const stored = await page.evaluate(() =>
        [localStorage, sessionStorage].flatMap((storage) => Object.keys(storage).map((key) => [key, storage.getItem(key) ?? ""])),
      );
      for (const [key, value] of stored) {
        assert.ok(!`${key}${value}`.includes(user.token), `the session token is kept in the browser's storage under "${key}"`);
        assert.ok(!`${key}${value}`.includes(user.licenseKey), `the license key is kept in the browser's storage under "${key}"`);
      }
      assert.ok(!stored.some(([key]) => key === "authorized"), "Swagger UI persisted its authorization");

      assert.deepEqual(seen.problems, [], "the page did not work cleanly under its policy");

      // The watch itself works: a picture from another origin breaks img-src, and is reported (the
      // browser blocks it before any request leaves).
      await page.evaluate(() => {
        const canary = document.createElement("img");
        canary.src = "http://127.0.0.1:9/canary.png";
        document.body.append(canary);
      });
      const canary = await page.waitForFunction(
        () => (window as unknown as { trellisViolations: string[] }).trellisViolations.find((violation) => violation.includes("canary")),
        null,
        wait,
      );
      assert.match(String(await canary.jsonValue()), /^img-src blocked http:\/\/127\.0\.0\.1:9\/canary\.png/);
    });
  } finally {
    await context.close();
  }
});

test("another origin cannot frame /docs", async () => {
  // A page on another port of 127.0.0.1 frames /docs/ and, as a control, /readyz (which sends no
  // framing policy), so a refused /docs is refused for its headers and not for being unreachable.
  const html = `<!doctype html><title>framer</title>
<iframe name="docs" src="${docsUrl}"></iframe>
<iframe name="control" src="${base}/readyz"></iframe>`;
  framer = createServer((_request, response) => {
    response.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store" }).end(html);
  });
  await new Promise<void>((resolve, reject) => {
    framer?.once("error", reject);
    framer?.listen(0, "127.0.0.1", resolve);
  });
  const origin = `http://127.0.0.1:${(framer.address() as AddressInfo).port}`;

  const context = await browser.newContext();
  const page = await context.newPage();
  const seen = await watch(page);
  try {
    await reporting(seen, async () => {
      const refused = page.waitForEvent("requestfailed", { predicate: (request) => request.url() === docsUrl, ...wait });
      const reported = page.waitForEvent("console", { predicate: (message) => /frame-ancestors 'none'/.test(message.text()), ...wait });
      // (Awaited below; a check that fails first leaves them to time out unheeded.)
      refused.catch(() => undefined);
      reported.catch(() => undefined);
      // `load` waits for both frames: each has shown what it will show.
      await page.goto(`${origin}/`, { waitUntil: "load", ...wait });

      const docs = page.frame({ name: "docs" });
      assert.ok(docs, "no /docs frame");
      assert.notEqual(docs.url(), docsUrl, "the frame shows /docs: framing was not refused");
      assert.equal(await docs.locator("#swagger-ui").count(), 0, "Swagger UI rendered inside the frame");
      // The server answered; Chromium refused to show the answer in the frame.
      const request = await refused;
      assert.equal((await request.response())?.status(), 200, "the server did not answer /docs/");
      assert.match(request.failure()?.errorText ?? "", /BLOCKED_BY_RESPONSE/);
      // Chromium says why: the policy's frame-ancestors (which it obeys before X-Frame-Options).
      assert.match((await reported).text(), /Framing .* violates .*frame-ancestors 'none'/);

      // The same server's /readyz, which sends no framing policy, does show in a frame.
      const control = page.frame({ name: "control" });
      assert.ok(control, "no control frame");
      await control.locator("body", { hasText: "ready" }).waitFor(wait);
    });
  } finally {
    await context.close();
  }
});
