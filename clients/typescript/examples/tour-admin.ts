// The tour's marketplace from both sides (tour.ts runs it): the owner submits a space's listing for
// review; then a second user, made a platform operator by the server's CLI, uses the operator routes
// (tag `admin`): the modules' metrics, the refused modules, the review queue and a decision, after which
// the listing is public and the owner is told by a message from `system`.
//
// TRELLIS_GRANT_OPERATOR is the command, up to the handle, that makes a user an operator on the server
// under test, e.g. `trellis admin grant-operator --config /srv/trellis/trellis.toml` (split on spaces:
// its words hold none). Unset, the operator part is skipped and says so.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";

import { createTrellis, ok, paginate, type Trellis, TrellisError } from "@trellis/client";

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** A check that the call fails with this status and code. */
function failsWith(status: number, code: string): (error: unknown) => boolean {
  return (error) => {
    if (error instanceof TrellisError && error.status === status && error.code === code) return true;
    throw error;
  };
}

/** The owner sends the space's listing to the operator: SUBMITTED, and not public yet. */
export async function submitListing(owner: Trellis, spaceId: string): Promise<string> {
  const path = { spaceId };
  const settings = await ok(
    owner.api.PUT("/v0/spaces/{spaceId}/settings/marketplace", {
      params: { path },
      body: { title: "Expenses", summary: "Claims of the team", categories: ["finance"], membership: "OPEN", submit: true },
    }),
  );
  assert.equal(settings.state, "SUBMITTED", "the listing's state");
  assert.equal(settings.listed, false, "listed before a decision");
  // The public read (no session) knows no listing before the operator approves it.
  const visitor = createTrellis({ baseUrl: owner.baseUrl, licenseKey: owner.licenseKey });
  await assert.rejects(ok(visitor.api.GET("/v0/marketplace/listings/{spaceId}", { params: { path } })), failsWith(404, "NOT_FOUND"));
  const trending = await ok(owner.api.GET("/v0/marketplace/trending", { params: { query: { limit: 10 } } }));
  return `listing SUBMITTED for the operator (not public yet: 404), ${trending.items.length} trending`;
}

/** The tour's own variables are no settings of the server, whose CLI refuses unknown TRELLIS_* ones. */
function grantOperator(command: string, handle: string): string {
  const [program, ...args] = command.split(" ").filter((word) => word !== "");
  assert.ok(program, "TRELLIS_GRANT_OPERATOR names no command");
  const env = { ...process.env };
  for (const name of ["TRELLIS_BASE", "TRELLIS_DATA", "TRELLIS_GRANT_OPERATOR"]) delete env[name];
  // Its output is kept for a failure's message (execFileSync's error carries stderr).
  const said = execFileSync(program, [...args, handle], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return said.trim();
}

/**
 * With TRELLIS_GRANT_OPERATOR set: `operator` (handle `operatorHandle`) is refused the operator routes,
 * made an operator, then lists the module metrics and the refused modules, finds the owner's listing
 * in the review queue (`states=SUBMITTED`) and approves it; the listing is then public and the owner
 * has a message from `system`.
 */
export async function reviewListing(owner: Trellis, operator: Trellis, operatorHandle: string, spaceId: string): Promise<string> {
  const command = process.env.TRELLIS_GRANT_OPERATOR;
  if (!command) return "skipped: TRELLIS_GRANT_OPERATOR (the command making a handle an operator) is not set";
  await assert.rejects(ok(operator.api.GET("/v0/admin/modules/metrics")), failsWith(403, "FORBIDDEN"));
  // The role is read from the database: the open session has it at once.
  grantOperator(command, operatorHandle);

  const metrics = await ok(operator.api.GET("/v0/admin/modules/metrics"));
  const tags = metrics.items.find((module) => module.moduleId === "tags");
  // The modules part called Tags twice.
  assert.ok(tags && tags.calls >= 2, `the Tags module's metrics: ${JSON.stringify(tags)}`);
  const refused = await ok(operator.api.GET("/v0/admin/modules/refused"));

  const queue = await collect(
    paginate((cursor) => operator.api.GET("/v0/admin/marketplace/listings", { params: { query: { states: ["SUBMITTED"], cursor } } })),
  );
  assert.ok(queue.every((listing) => listing.state === "SUBMITTED"), "the SUBMITTED queue holds other states");
  const mine = queue.find((listing) => listing.spaceId === spaceId);
  assert.ok(mine && !mine.listed, `the queue (${queue.length}) lacks the owner's listing`);
  const decided = await ok(
    operator.api.POST("/v0/admin/marketplace/listings/{spaceId}/decision", { params: { path: { spaceId } }, body: { approved: "YES" } }),
  );
  assert.ok(decided.state === "APPROVED" && decided.listed, `the decision answered ${decided.state}, listed ${decided.listed}`);

  // Public now, with the text the operator approved; the owner sees APPROVED and was told.
  const visitor = createTrellis({ baseUrl: owner.baseUrl, licenseKey: owner.licenseKey });
  const listing = await ok(visitor.api.GET("/v0/marketplace/listings/{spaceId}", { params: { path: { spaceId } } }));
  assert.equal(listing.title, mine.title, "the public listing's title");
  const settings = await ok(owner.api.GET("/v0/spaces/{spaceId}/settings/marketplace", { params: { path: { spaceId } } }));
  assert.ok(settings.state === "APPROVED" && settings.listed, `the owner sees ${settings.state}, listed ${settings.listed}`);
  const threads = await collect(paginate((cursor) => owner.api.GET("/v0/messages/threads", { params: { query: { cursor } } })));
  assert.ok(threads.some((thread) => thread.participant.handle === "system" && thread.unread === 1), "no unread message from system");
  return (
    `${operatorHandle} refused (403), made an operator; metrics of ${metrics.items.length} modules (Tags: ${tags.calls} calls), ` +
    `${refused.items.length} refused; the listing found in the queue of ${queue.length}, approved, public, its owner told`
  );
}
