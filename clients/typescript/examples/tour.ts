// A tour of the /v0 interface through the installed @trellis/client: every family of routes, by two
// users (Ann and Bob). Auth, users (a conditional update, a stale one refused), forms, workflows,
// spaces, modules, assets, channels, messages heard live over GET /v0/events, the marketplace (Bob,
// made an operator, reviews Ann's listing: tour-admin.ts), both exports streamed, and a resumable
// (tus) upload that survives a lost answer and is then used. Exits non-zero on the first failure.
//
//   TRELLIS_BASE=http://127.0.0.1:8080 TRELLIS_DATA=data \
//     TRELLIS_GRANT_OPERATOR="trellis admin grant-operator --config trellis.toml" node tour.js
//
// TRELLIS_DATA is the server's data directory: its `license.key` and `outbox/` (a server without SMTP
// writes its mail there). Each run signs up new users and spaces (random suffixes), so it can run again
// against the same server. It is compiled in a project of its own against the packed package
// (`check-package build`), so it imports "@trellis/client" as any user's program would.
import { randomBytes } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import {
  attachUploads,
  callModule,
  createTrellis,
  exportForms,
  exportItems,
  type LiveEvent,
  login,
  ok,
  openEvents,
  paginate,
  type RequestBody,
  resumableUpload,
  signUp,
  type Trellis,
  TrellisError,
  uploadAsset,
  uploadAttachments,
  uploadStatus,
} from "@trellis/client";
// Node 20 has no EventSource of its own.
import { EventSource } from "eventsource";

import { reviewListing, submitListing } from "./tour-admin.js";

const base = process.env.TRELLIS_BASE ?? "http://127.0.0.1:8080";
const data = process.env.TRELLIS_DATA ?? "data";
const password = "correct horse 42";
const suffix = randomBytes(4).toString("hex");

/** The 6-digit PIN of the newest mail to `email` in the outbox, waiting up to 10 seconds for it. */
async function pinFromOutbox(email: string): Promise<string> {
  const outbox = join(data, "outbox");
  for (let attempt = 0; attempt < 50; attempt++) {
    const names = await readdir(outbox).catch(() => [] as string[]);
    let pin: string | undefined;
    for (const name of names.sort()) {
      const mail = (await readFile(join(outbox, name), "utf8")).replace(/\r/g, "");
      if (!mail.toLowerCase().includes(email.toLowerCase())) continue;
      const lines = mail.split("\n").filter((line) => /^ +[0-9]{6}$/.test(line));
      pin = lines.at(-1)?.trim() ?? pin;
    }
    if (pin) return pin;
    await sleep(200);
  }
  throw new Error(`no PIN for ${email} in ${outbox}`);
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

/** The TrellisError a call must fail with. */
async function refused(call: Promise<unknown>, status: number, code: string): Promise<TrellisError> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TrellisError && error.status === status && error.code === code) return error;
    throw error;
  }
  throw new Error(`expected ${status} ${code}, the call succeeded`);
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

let current = "start";

/** One line per family of routes, with its time. */
async function step(name: string, run: () => Promise<string>): Promise<void> {
  current = name;
  const start = performance.now();
  const summary = await run();
  console.log(`${name.padEnd(12)} ${String(Math.round(performance.now() - start)).padStart(5)} ms  ${summary}`);
}

// A 1x1 PNG: bytes the server's type sniffing accepts as a picture.
const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=", "base64");
const pngBlob = () => new Blob([png], { type: "image/png" });

async function main(): Promise<void> {
  const licenseKey = (await readFile(join(data, "license.key"), "utf8")).trim();
  const ann = createTrellis({ baseUrl: base, licenseKey });
  const bob = createTrellis({ baseUrl: base, licenseKey });
  const annHandle = `ann_${suffix}`;
  const bobHandle = `bob_${suffix}`;

  await step("auth", async () => {
    const details = (handle: string, name: string) => ({ email: `${handle}@example.org`, handle, fullName: `${name} Example`, displayName: name });
    await signUp(ann, details(annHandle, "Ann"), password, pinFromOutbox);
    await signUp(bob, details(bobHandle, "Bob"), password, pinFromOutbox);
    // A fresh login (the handle or the e-mail works) replaces the sign-up's session.
    ann.token = undefined;
    await login(ann, `${annHandle}@example.org`, password);
    const session = await ok(ann.api.GET("/v0/auth/session"));
    check(session.handle === annHandle, `the session is ${session.handle}'s`);
    return `signed up ${annHandle} and ${bobHandle}, logged in, session until ${session.expiresAt}`;
  });

  await step("users", async () => {
    const { data: me, response } = await ann.api.GET("/v0/users/me");
    const etag = response.headers.get("ETag");
    check(me && etag, "GET /v0/users/me gave no profile or no ETag");
    const updated = await ok(
      ann.api.PATCH("/v0/users/me", { params: { header: { "If-Match": etag } }, body: { displayName: "Ann E." } }),
    );
    check(updated.displayName === "Ann E.", "the display name did not change");
    // The first change moved the ETag on: the same If-Match again is stale.
    await refused(
      ok(ann.api.PATCH("/v0/users/me", { params: { header: { "If-Match": etag } }, body: { displayName: "Ann" } })),
      412,
      "PRECONDITION_FAILED",
    );
    const found = await ok(ann.api.GET("/v0/users/search", { params: { query: { q: bobHandle } } }));
    check(found.items.some((user) => user.handle === bobHandle), "search did not find Bob");
    return "me, PATCH me with If-Match, a stale If-Match is 412, search";
  });

  // The form: an amount, a receipt (one file) and photos (several).
  const amount = "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a01";
  const receipt = "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a02";
  const photos = "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a03";
  const formConfig: RequestBody<"/v0/forms/configurations", "post"> = {
    config: {
      version: "1.0.0",
      // Logging on: the instance's history records each change.
      controls: { enableLogging: true },
      metadata: { captureTimestamp: false, captureTags: false, captureSummary: false, captureLocation: false },
      integrations: { allowSpaceAssociations: false, allowWorkflowStarts: true },
      translations: {
        defaultLanguage: "en",
        en: {
          details: { title: "Expense claim" },
          pages: {
            p1: {
              title: "Claim",
              fields: { p1_amount: { label: "Amount" }, p1_receipt: { label: "Receipt" }, p1_photos: { label: "Photos" } },
            },
          },
        },
      },
      pages: [
        {
          id: "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a00",
          key: "p1",
          order: 1,
          title: "$.pages.p1.title",
          fields: [
            {
              id: amount, key: "p1_amount", order: 1, type: "text", value: "", validation: "[0-9]+(\\.[0-9]{2})?",
              label: "$.pages.p1.fields.p1_amount.label", visible: true, editable: true, required: true,
            },
            {
              id: receipt, key: "p1_receipt", order: 2, type: "file", value: "",
              label: "$.pages.p1.fields.p1_receipt.label", visible: true, editable: true, required: false,
              file: { accept: ["image/png", "application/pdf"], maxBytes: 1048576, multiple: false },
            },
            {
              id: photos, key: "p1_photos", order: 3, type: "file", value: "",
              label: "$.pages.p1.fields.p1_photos.label", visible: true, editable: true, required: false,
              file: { accept: ["image/png"], maxBytes: 1048576, multiple: true },
            },
          ],
        },
      ],
    },
  };
  let formConfigId = "";
  let claim = "";

  await step("forms", async () => {
    const form = await ok(ann.api.POST("/v0/forms/configurations", { body: formConfig }));
    formConfigId = form.id;
    await ok(ann.api.GET("/v0/forms/configurations/{configurationId}", { params: { path: { configurationId: form.id } } }));
    const draft = await ok(
      ann.api.POST("/v0/forms", {
        body: { payload: { configurationId: form.id, language: "en", state: "DRAFT", fields: { [amount]: "42.50", [receipt]: [], [photos]: [] } } },
      }),
    );
    claim = draft.formId;
    check(draft.state === "DRAFT", `the new instance is ${draft.state}`);
    const { response } = await ann.api.GET("/v0/forms/{formId}", { params: { path: { formId: claim } } });
    const etag = response.headers.get("ETag");
    check(etag, "GET /v0/forms/{formId} gave no ETag");
    const submitted = await ok(
      ann.api.PATCH("/v0/forms/{formId}", {
        params: { path: { formId: claim }, header: { "If-Match": etag } },
        body: { payload: { fields: { [amount]: "43.00" }, state: "SUBMITTED" } },
      }),
    );
    check(submitted.state === "SUBMITTED", `the updated instance is ${submitted.state}`);
    const history = await collect(
      paginate((cursor) => ann.api.GET("/v0/forms/{formId}/history", { params: { path: { formId: claim }, query: { cursor } } })),
    );
    check(history.length >= 2, `the history has ${history.length} entries`);
    const uploaded = await uploadAttachments(ann, claim, [{ fieldId: receipt, file: pngBlob(), name: "receipt.png" }]);
    const part = uploaded.attachments[0];
    check(part, "the upload answered no attachment");
    const download = await ann.api.GET("/v0/media/forms/{formId}/attachments/{partKey}", {
      params: { path: { formId: claim, partKey: part.partKey } },
      parseAs: "arrayBuffer",
    });
    check(download.response.ok && download.data, `the download answered ${download.response.status}`);
    check(Buffer.from(download.data).equals(png), "the downloaded bytes differ from the uploaded ones");
    // A second instance, left a draft: the exports have two rows, one per state.
    await ok(ann.api.POST("/v0/forms", { body: { payload: { configurationId: form.id, state: "DRAFT", fields: { [amount]: "7.00" } } } }));
    return `configuration, DRAFT instance, PATCH to SUBMITTED with If-Match, ${history.length} history entries, attachment up and down, a second DRAFT`;
  });

  let flowId = "";
  const viewId = "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c04";
  await step("workflows", async () => {
    const submitted = "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c01";
    const approved = "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c02";
    const flowConfig: RequestBody<"/v0/workflows/configurations", "post"> = {
      config: {
        version: "1.0.0",
        controls: { enableLogging: false },
        translations: {
          defaultLanguage: "en",
          en: {
            details: { title: "Claims" },
            workbaskets: { submitted: { label: "Submitted" }, approved: { label: "Approved" } },
            transitions: { approve: { label: "Approve" } },
            views: { all: { label: "All claims", description: "Every claim" } },
          },
        },
        network: {
          entryWorkbasketId: submitted,
          workbaskets: [
            {
              id: submitted, label: "$.workbaskets.submitted.label", order: 1,
              transitions: [{ id: "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c03", targetWorkbasketId: approved, label: "$.transitions.approve.label" }],
            },
            { id: approved, label: "$.workbaskets.approved.label", order: 2, terminal: true, transitions: [] },
          ],
        },
        views: [
          {
            id: viewId, label: "$.views.all.label", description: "$.views.all.description",
            workbasketIds: [submitted, approved], permissionSlot: 1,
            forms: { [formConfigId]: { listFields: ["p1_amount"], detailFields: [{ fieldKey: "p1_amount" }] } },
          },
        ],
        integrations: { forms: { allowedConfigurationIds: [formConfigId] } },
      },
    };
    const flow = await ok(ann.api.POST("/v0/workflows/configurations", { body: flowConfig }));
    flowId = flow.id;
    await ok(ann.api.GET("/v0/workflows/configurations/{configurationId}", { params: { path: { configurationId: flowId } } }));
    // Bob holds the view's slot: he reads its items.
    await ok(
      ann.api.PUT("/v0/workflows/configurations/{configurationId}/permissions", {
        params: { path: { configurationId: flowId } },
        body: { grants: [{ handle: bobHandle, slots: [1] }] },
      }),
    );
    const permissions = await ok(
      ann.api.GET("/v0/workflows/configurations/{configurationId}/permissions", { params: { path: { configurationId: flowId } } }),
    );
    check(permissions.grants.some((grant) => grant.handle === bobHandle), "Bob holds no slot");
    await ok(ann.api.POST("/v0/workflows/instances", { body: { workflowConfigurationId: flowId, itemId: claim } }));
    const item = await ok(
      ann.api.GET("/v0/workflows/items/{itemId}", { params: { path: { itemId: claim }, query: { workflowConfigurationId: flowId } } }),
    );
    const move = item.transitions[0];
    check(move, "the new item offers no transition");
    const moved = await ok(
      ann.api.POST("/v0/workflows/items/{itemId}/transitions", {
        params: { path: { itemId: claim }, query: { workflowConfigurationId: flowId } },
        body: { transitionId: move.transitionId },
      }),
    );
    check(moved.workbasketId === approved, `the item moved to ${moved.workbasketId}`);
    const seen = await collect(
      paginate((cursor) =>
        bob.api.GET("/v0/workflows/views/{viewId}/items", {
          params: { path: { viewId }, query: { workflowConfigurationId: flowId, cursor } },
        }),
      ),
    );
    check(seen.some((row) => row.itemId === claim), "Bob's view does not show the item");
    return "configuration, permissions (Bob holds slot 1), started, item, moved to Approved, Bob's view lists it";
  });

  let spaceId = "";
  await step("spaces", async () => {
    const space = await ok(
      ann.api.POST("/v0/spaces", { body: { name: `expenses-${suffix}`, displayName: "Expenses", summary: "Claims of the team" } }),
    );
    spaceId = space.spaceId;
    const path = { spaceId };
    const { response } = await ann.api.GET("/v0/spaces/{spaceId}/settings/general", { params: { path } });
    const etag = response.headers.get("ETag") ?? undefined;
    await ok(
      ann.api.PATCH("/v0/spaces/{spaceId}/settings/general", {
        params: { path, header: etag ? { "If-Match": etag } : {} },
        body: { summary: "Claims of the team, and their receipts" },
      }),
    );
    await ok(ann.api.POST("/v0/spaces/{spaceId}/comments", { body: { body: "Welcome!" }, params: { path } }));
    const comments = await collect(
      paginate((cursor) => ann.api.GET("/v0/spaces/{spaceId}/comments", { params: { path, query: { cursor } } })),
    );
    check(comments.some((comment) => comment.body === "Welcome!"), "the comment is not listed");
    return `space ${space.name}, settings read and changed, a comment`;
  });

  await step("modules", async () => {
    await ok(
      ann.api.PUT("/v0/spaces/{spaceId}/modules", { params: { path: { spaceId } }, body: { modules: [{ moduleId: "tags", config: {} }] } }),
    );
    await callModule(ann, spaceId, "tags", "POST", `items/${claim}/tags`, { tags: ["travel"] });
    const tags = await callModule(ann, spaceId, "tags", "GET", `items/${claim}/tags`);
    check(JSON.stringify(tags).includes("travel"), `the item's tags are ${JSON.stringify(tags)}`);
    return `Tags connected, the claim tagged: ${JSON.stringify(tags)}`;
  });

  await step("assets", async () => {
    const { newPublishedAssetId: assetId } = await ok(
      ann.api.POST("/v0/spaces/{spaceId}/assets", {
        params: { path: { spaceId } },
        body: { title: "Logo", filename: "logo.png", contentType: "image/png" },
      }),
    );
    const stored = await uploadAsset(ann, spaceId, assetId, { file: pngBlob(), name: "logo.png" });
    check(stored.bytes === png.length, `the asset holds ${stored.bytes} bytes`);
    const asset = await ok(ann.api.GET("/v0/spaces/{spaceId}/assets/{assetId}", { params: { path: { spaceId, assetId } } }));
    check(asset.state === "AWAITING_APPROVAL", `the uploaded asset is ${asset.state}`);
    return "announced, bytes uploaded, AWAITING_APPROVAL";
  });

  let channelId = "";
  await step("channels", async () => {
    const channel = await ok(ann.api.POST("/v0/channels", { body: { name: `Expenses ${suffix}`, description: "Where claims are talked over" } }));
    channelId = channel.channelId;
    const path = { channelId };
    await ok(ann.api.PUT("/v0/channels/{channelId}/spaces", { params: { path }, body: { spaceIds: [spaceId] } }));
    await ok(ann.api.POST("/v0/channels/{channelId}/comments", { params: { path }, body: { body: "Claims go here." } }));
    const { invites } = await ok(ann.api.POST("/v0/channels/{channelId}/invites", { params: { path }, body: { users: [bobHandle] } }));
    check(invites[0]?.state === "PENDING", `the invite is ${JSON.stringify(invites)}`);
    const pending = await collect(paginate((cursor) => bob.api.GET("/v0/channels/invites/pending", { params: { query: { cursor } } })));
    const invite = pending.find((one) => one.channelId === channelId);
    check(invite, "Bob has no pending invite to the channel");
    const accepted = await ok(bob.api.POST("/v0/channels/invites/respond", { body: { inviteId: invite.inviteId, response: "ACCEPT" } }));
    check(accepted.state === "ACCEPTED", `the invite is ${accepted.state}`);
    const read = await collect(paginate((cursor) => bob.api.GET("/v0/channels/{channelId}/comments", { params: { path, query: { cursor } } })));
    check(read.length >= 1, "Bob, a member now, reads no comment");
    return "created, space connected, a comment, Bob invited, accepted and reading";
  });

  await step("messages", async () => {
    // Ann listens first (a ticket, then the stream), so Bob's message is heard live.
    const heard: LiveEvent[] = [];
    const live = await openEvents(ann, { EventSource, onEvent: (event) => heard.push(event) });
    let sent: { threadId: string; messageId: string };
    try {
      sent = await ok(bob.api.POST("/v0/messages", { body: { to: annHandle, subject: "My claim", body: "Could you approve it?" } }));
      for (let waited = 0; !heard.some((e) => e.name === "message.created" && e.data.messageId === sent.messageId); waited += 50) {
        check(waited < 10_000, `no message.created within 10 s (heard: ${heard.map((e) => e.name).join(", ") || "nothing"})`);
        await sleep(50);
      }
    } finally {
      live.close();
    }
    const unread = await ok(ann.api.GET("/v0/messages/unread"));
    check(unread.unread === 1, `Ann has ${unread.unread} unread messages`);
    const threads = await collect(paginate((cursor) => ann.api.GET("/v0/messages/threads", { params: { query: { cursor } } })));
    const thread = threads.find((one) => one.threadId === sent.threadId);
    check(thread && thread.participant.handle === bobHandle, "the thread with Bob is not listed");
    // Reading the thread's messages marks them read.
    const messages = await collect(
      paginate((cursor) =>
        ann.api.GET("/v0/messages/threads/{threadId}/messages", { params: { path: { threadId: sent.threadId }, query: { cursor } } }),
      ),
    );
    check(messages.length === 1, `the thread holds ${messages.length} messages`);
    await ok(ann.api.GET("/v0/messages/threads/{threadId}/messages/{messageId}", { params: { path: { threadId: sent.threadId, messageId: sent.messageId } } }));
    const after = await ok(ann.api.GET("/v0/messages/unread"));
    check(after.unread === 0, `after reading, Ann has ${after.unread} unread messages`);
    await ok(ann.api.POST("/v0/messages", { body: { threadId: sent.threadId, body: "Approved." } }));
    return `Bob's message heard live as message.created (${heard.map((e) => e.name).join(", ")}), unread 1 then 0, a reply`;
  });

  await step("marketplace", () => submitListing(ann, spaceId));
  // With TRELLIS_GRANT_OPERATOR (the server's CLI, short of the handle) only; skipped otherwise.
  await step("operator", () => reviewListing(ann, bob, bobHandle, spaceId));

  await step("export", async () => {
    // Both formats read row by row as they arrive.
    const forms = await collect(exportForms(ann, { states: ["DRAFT", "SUBMITTED"] }));
    check(forms.length === 2 && forms.some((form) => form.formId === claim), `the form export has ${forms.length} lines`);
    const submitted = await collect(exportForms(ann, { states: ["SUBMITTED"] }));
    check(submitted.length === 1 && submitted[0]?.formId === claim, `the SUBMITTED form export has ${submitted.length} lines`);
    const formRows = await collect(exportForms(ann, { format: "csv", configurationId: formConfigId }));
    const [formHeader, ...formCells] = formRows;
    check(formCells.length === 2, `the form CSV has ${formCells.length} rows`);
    check(formHeader?.[0] === "formId" && formHeader.includes("p1_amount"), `the form CSV header is ${JSON.stringify(formHeader)}`);
    const claimRow = formCells.find((row) => row[0] === claim);
    check(claimRow?.[formHeader.indexOf("p1_amount")] === "43.00", `the claim's CSV row is ${JSON.stringify(claimRow)}`);
    const view = { workflowConfigurationId: flowId, workflowViewId: viewId };
    const items = await collect(exportItems(ann, view));
    check(items.some((item) => item.itemId === claim), "the JSON-lines item export lacks the claim");
    const itemRows = await collect(exportItems(bob, { ...view, format: "csv", configurationId: formConfigId }));
    check(itemRows[0]?.[0] === "itemId" && itemRows.some((row) => row[0] === claim), `Bob's item CSV is ${JSON.stringify(itemRows)}`);
    return `forms: ${forms.length} JSON lines (${submitted.length} SUBMITTED), ${formRows.length} CSV records; items: ${items.length} JSON lines, ${itemRows.length} CSV records (Bob's)`;
  });

  await step("tus", async () => {
    // The answer to the second PATCH is lost on the way back (its bytes were stored): the upload
    // asks HEAD where the server stands and goes on from there.
    const requests: string[] = [];
    let patches = 0;
    const flaky: Trellis = createTrellis({
      baseUrl: base,
      licenseKey,
      token: ann.token,
      fetch: async (request) => {
        requests.push(request.method);
        const response = await fetch(request);
        if (request.method === "PATCH" && ++patches === 2) throw new TypeError("simulated: the connection dropped before the answer");
        return response;
      },
    });
    const upload = await resumableUpload(flaky, pngBlob(), { filename: "photo.png", chunkBytes: 24, retryDelayMs: 10 });
    check(requests.filter((m) => m === "PATCH").length >= 3, `the upload took ${requests.join(" ")}`);
    check(requests.includes("HEAD"), "the upload did not resume through HEAD");
    const attached = await attachUploads(ann, claim, [{ fieldId: photos, uploadId: upload.uploadId }]);
    check(attached.attachments[0]?.bytes === png.length, "the attached upload has other bytes");
    // Used: the attachment took its bytes, the upload is gone.
    await refused(uploadStatus(ann, upload.uploadId), 404, "NOT_FOUND");
    // A second one becomes an asset's bytes.
    const { newPublishedAssetId: assetId } = await ok(
      ann.api.POST("/v0/spaces/{spaceId}/assets", {
        params: { path: { spaceId } },
        body: { title: "Photo", filename: "photo.png", contentType: "image/png" },
      }),
    );
    const second = await resumableUpload(ann, pngBlob(), { filename: "photo.png", chunkBytes: 40 });
    const asset = await uploadAsset(ann, spaceId, assetId, { uploadId: second.uploadId });
    check(asset.bytes === png.length, `the asset holds ${asset.bytes} bytes`);
    return `${requests.join(" ")} (a lost answer, resumed), attached to the claim; a second upload became an asset`;
  });

  await step("logout", async () => {
    await ok(ann.api.POST("/v0/auth/logout"));
    await ok(bob.api.POST("/v0/auth/logout"));
    await refused(ok(ann.api.GET("/v0/auth/session")), 401, "UNAUTHENTICATED");
    return "both sessions ended; the old token is 401";
  });
  const skipped = process.env.TRELLIS_GRANT_OPERATOR ? "" : " (but the operator's: skipped)";
  console.log(`tour (TypeScript): every family of routes${skipped} answered as expected`);
}

// A server that stops answering fails the tour instead of hanging it (a run takes about a second).
setTimeout(() => {
  console.error(`tour failed at ${current}: still running after 120 s`);
  process.exit(1);
}, 120_000).unref();

main().catch((error: unknown) => {
  console.error(`tour failed at ${current}: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof TrellisError) {
    console.error(`  request ${error.requestId ?? "?"}`);
    for (const detail of error.details) console.error(`  ${detail.path}: ${detail.code} ${detail.message}`);
  }
  // fetch's "fetch failed" says why below it (ECONNREFUSED, ...).
  for (let cause = error instanceof Error ? error.cause : undefined; cause instanceof Error; cause = cause.cause) {
    console.error(`  because: ${cause.message}`);
  }
  process.exit(1);
});
