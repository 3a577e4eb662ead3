// The README's quickstart through the TypeScript client: sign up (the PIN read from the outbox folder
// of a server without SMTP), log in, a form configuration with a text and a file field, an instance and
// its attachment, a workflow started and moved one step, a space with the Tags module and a tag added
// through the module's route. Exits non-zero on the first failure.
//
//   TRELLIS_BASE=http://127.0.0.1:8080 TRELLIS_DATA=data node dist/examples/quickstart.js
//
// TRELLIS_DATA is the server's data directory: its `license.key` and `outbox/`. Each run signs up a new
// user (`ann_<random>`) and space (`expenses-<random>`), so it can run again against the same server.
import { randomBytes } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

import { callModule, createTrellis, login, ok, type RequestBody, signUp, TrellisError, uploadAttachments } from "../src/index.js";

const base = process.env.TRELLIS_BASE ?? "http://127.0.0.1:8080";
const data = process.env.TRELLIS_DATA ?? "data";

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

async function main(): Promise<void> {
  const licenseKey = (await readFile(join(data, "license.key"), "utf8")).trim();
  const trellis = createTrellis({ baseUrl: base, licenseKey });
  const suffix = randomBytes(4).toString("hex");
  const handle = `ann_${suffix}`;
  const email = `${handle}@example.org`;
  const password = "correct horse 42";

  // 1. Sign up; the PIN mail is a file in the outbox.
  await signUp(trellis, { email, handle, fullName: "Ann Example", displayName: "Ann" }, password, pinFromOutbox);

  // 2. Log in (with the handle or the e-mail): the session is the bearer of every later call.
  trellis.token = undefined;
  await login(trellis, handle, password);
  const me = await ok(trellis.api.GET("/v0/users/me"));
  console.log("signed in as", me.handle);

  // 3. A form configuration with a text field and a file field; texts live in translations.
  const amount = "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a01";
  const receipt = "8b0f6bd4-54a4-4e11-9d3b-2f6f0c5f1a02";
  const formConfig: RequestBody<"/v0/forms/configurations", "post"> = {
    config: {
      version: "1.0.0",
      controls: { enableLogging: false },
      metadata: { captureTimestamp: false, captureTags: false, captureSummary: false, captureLocation: false },
      integrations: { allowSpaceAssociations: false, allowWorkflowStarts: true },
      translations: {
        defaultLanguage: "en",
        en: {
          details: { title: "Expense claim" },
          pages: { p1: { title: "Claim", fields: { p1_amount: { label: "Amount" }, p1_receipt: { label: "Receipt" } } } },
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
          ],
        },
      ],
    },
  };
  const form = await ok(trellis.api.POST("/v0/forms/configurations", { body: formConfig }));
  console.log("form configuration", form.id);

  // 4. An instance (file fields stay empty in JSON), then its attachment as multipart.
  const instance = await ok(
    trellis.api.POST("/v0/forms", {
      body: { payload: { configurationId: form.id, language: "en", fields: { [amount]: "42.50", [receipt]: [] } } },
    }),
  );
  const claim = instance.formId;
  // A 1x1 picture stands in for the receipt.
  const png = Buffer.from(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=",
    "base64",
  );
  const uploaded = await uploadAttachments(trellis, claim, [
    { fieldId: receipt, file: new Blob([png], { type: "image/png" }), name: "receipt.png" },
  ]);
  console.log("attachments", uploaded.attachments.length);
  await ok(trellis.api.GET("/v0/forms/{formId}", { params: { path: { formId: claim } } }));

  // 5. A workflow (submitted, then approved) that allows this form; start it on the claim and move it.
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
          id: "2b8f4c1e-0a4d-4f7a-9c1e-5d6f7a8b9c04", label: "$.views.all.label", description: "$.views.all.description",
          workbasketIds: [submitted, approved], permissionSlot: 1,
          forms: { [form.id]: { listFields: ["p1_amount"], detailFields: [{ fieldKey: "p1_amount" }] } },
        },
      ],
      integrations: { forms: { allowedConfigurationIds: [form.id] } },
    },
  };
  const flow = await ok(trellis.api.POST("/v0/workflows/configurations", { body: flowConfig }));
  await ok(trellis.api.POST("/v0/workflows/instances", { body: { workflowConfigurationId: flow.id, itemId: claim } }));
  const item = await ok(
    trellis.api.GET("/v0/workflows/items/{itemId}", {
      params: { path: { itemId: claim }, query: { workflowConfigurationId: flow.id } },
    }),
  );
  const move = item.transitions[0];
  if (!move) throw new Error("the new item offers no transition");
  const moved = await ok(
    trellis.api.POST("/v0/workflows/items/{itemId}/transitions", {
      params: { path: { itemId: claim }, query: { workflowConfigurationId: flow.id } },
      body: { transitionId: move.transitionId },
    }),
  );
  console.log("moved to workbasket", moved.workbasketId);

  // 6. A space with the Tags module connected, and a tag on the claim through the module's route.
  const space = await ok(
    trellis.api.POST("/v0/spaces", { body: { name: `expenses-${suffix}`, displayName: "Expenses", summary: "Claims of the team" } }),
  );
  await ok(
    trellis.api.PUT("/v0/spaces/{spaceId}/modules", {
      params: { path: { spaceId: space.spaceId } },
      body: { modules: [{ moduleId: "tags", config: {} }] },
    }),
  );
  const tags = await callModule(trellis, space.spaceId, "tags", "POST", `items/${claim}/tags`, { tags: ["travel"] });
  console.log("tags", JSON.stringify(tags));
  console.log("quickstart (TypeScript): every step answered 2xx");
}

main().catch((error: unknown) => {
  if (error instanceof TrellisError) {
    console.error(`quickstart failed: ${error.message} (request ${error.requestId ?? "?"})`);
    for (const detail of error.details) console.error(`  ${detail.path}: ${detail.code} ${detail.message}`);
  } else {
    console.error("quickstart failed:", error);
  }
  process.exit(1);
});
