// Exports (JSON lines or CSV), streamed: rows are parsed as the body arrives, never read whole.
import type { Trellis } from "./client.js";
import { TrellisError } from "./errors.js";
import type { paths } from "./schema.js";

/** The export formats: JSON lines (`application/jsonl`, the default) or CSV (`text/csv`). */
export type ExportFormat = "jsonl" | "csv";

/** A form instance as `GET /v0/forms/{formId}` answers it: one line of a JSON-lines form export. */
export type FormInstance = paths["/v0/forms/{formId}"]["get"]["responses"][200]["content"]["application/json"];

/** An item as `GET /v0/workflows/items/{itemId}` answers it through a view: one line of an item export. */
export type WorkflowItem = paths["/v0/workflows/items/{itemId}"]["get"]["responses"][200]["content"]["application/json"];

/** A form instance's state. */
export type FormState = FormInstance["state"];

/** The filters of `GET /v0/forms/export`. */
export interface FormsExportQuery {
  format?: ExportFormat;
  /** The one configuration whose instances are exported; required for `csv`. */
  configurationId?: string;
  /** Only instances in these states (sent comma-separated). */
  states?: readonly FormState[];
  /** Only instances changed at or after this time (RFC 3339). */
  updatedSince?: string | Date;
}

/** The query of `GET /v0/workflows/items/export`: a view the caller holds, and filters. */
export interface ItemsExportQuery {
  workflowConfigurationId: string;
  workflowViewId: string;
  format?: ExportFormat;
  /** Only items of this form configuration; required for `csv`. */
  configurationId?: string;
  /** The labels' language; the default language fills gaps. */
  language?: string;
}

// Each member above names a query parameter of the document: a parameter renamed there fails the build here.
type Assert<T extends true> = T;
type NamesParameters<Query, Operation> = Exclude<keyof Query, keyof NonNullable<Operation>> extends never ? true : false;
type ExportQueriesMatchTheDocument = [
  Assert<NamesParameters<FormsExportQuery, paths["/v0/forms/export"]["get"]["parameters"]["query"]>>,
  Assert<NamesParameters<ItemsExportQuery, paths["/v0/workflows/items/export"]["get"]["parameters"]["query"]>>,
];

/** What an export may be given besides its query. */
export interface ExportOptions {
  /** Aborts the request and the reading of its body. */
  signal?: AbortSignal;
}

/**
 * Every form instance the caller may read, streamed: `for await (const form of exportForms(trellis))`
 * gives each instance as `GET /v0/forms/{formId}` answers it (JSON lines); with `format: "csv"` (and
 * one `configurationId`) each CSV record as its cells, the header row first. Rows are read as they
 * arrive, never the whole body at once; leaving the loop early cancels the request.
 *
 * The request is sent when the iteration starts. A refusal (400 with every problem of the query,
 * 429 while two exports run) throws `TrellisError`; so does a body cut short (the server failed part
 * way: it can only stop writing), with the code `EXPORT_CUT_SHORT`.
 */
export function exportForms(trellis: Trellis, query: FormsExportQuery & { format: "csv" }, options?: ExportOptions): AsyncGenerator<string[], void, undefined>;
export function exportForms(trellis: Trellis, query?: FormsExportQuery & { format?: "jsonl" }, options?: ExportOptions): AsyncGenerator<FormInstance, void, undefined>;
export function exportForms(trellis: Trellis, query?: FormsExportQuery, options?: ExportOptions): AsyncGenerator<FormInstance | string[], void, undefined>;
export function exportForms(trellis: Trellis, query: FormsExportQuery = {}, options: ExportOptions = {}): AsyncGenerator<unknown, void, undefined> {
  const updatedSince = query.updatedSince instanceof Date ? query.updatedSince.toISOString() : query.updatedSince;
  // `states=DRAFT,SUBMITTED`: the form the server reads (not `states=DRAFT&states=SUBMITTED`).
  const states = query.states?.join(",");
  const search = { format: query.format, configurationId: query.configurationId, states, updatedSince };
  return streamExport(trellis, "/v0/forms/export", search, query.format ?? "jsonl", options.signal);
}

/**
 * Every item of a workflow view the caller holds, streamed as `exportForms` streams instances: each
 * item as `GET /v0/workflows/items/{itemId}` answers it through the view (JSON lines), or with
 * `format: "csv"` (and one `configurationId`) each CSV record as its cells, the header row first.
 * A view the caller does not hold is 404 (`TrellisError`).
 */
export function exportItems(trellis: Trellis, query: ItemsExportQuery & { format: "csv" }, options?: ExportOptions): AsyncGenerator<string[], void, undefined>;
export function exportItems(trellis: Trellis, query: ItemsExportQuery & { format?: "jsonl" }, options?: ExportOptions): AsyncGenerator<WorkflowItem, void, undefined>;
export function exportItems(trellis: Trellis, query: ItemsExportQuery, options?: ExportOptions): AsyncGenerator<WorkflowItem | string[], void, undefined>;
export function exportItems(trellis: Trellis, query: ItemsExportQuery, options: ExportOptions = {}): AsyncGenerator<unknown, void, undefined> {
  const { workflowConfigurationId, workflowViewId, format, configurationId, language } = query;
  const search = { workflowConfigurationId, workflowViewId, format, configurationId, language };
  return streamExport(trellis, "/v0/workflows/items/export", search, format ?? "jsonl", options.signal);
}

async function* streamExport(
  trellis: Trellis,
  path: string,
  query: Record<string, string | undefined>,
  format: ExportFormat,
  signal: AbortSignal | undefined,
): AsyncGenerator<unknown, void, undefined> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) search.set(name, value);
  }
  const accept = format === "csv" ? "text/csv" : "application/jsonl";
  const init: RequestInit = { headers: { Accept: accept } };
  if (signal) init.signal = signal;
  // `states=DRAFT,SUBMITTED` as the document writes it (a comma and `%2C` decode alike).
  const response = await trellis.fetch(`${path}?${String(search).replace(/%2C/g, ",")}`, init);
  if (!response.ok) {
    throw await TrellisError.read(response);
  }
  const text = bodyText(response, signal);
  const cutShort = () =>
    new TrellisError(
      response.status, "EXPORT_CUT_SHORT", 0, "the export ended part way through a row: the server failed while writing it",
      [], response.headers.get("X-Request-Id") ?? undefined,
    );
  yield* format === "csv" ? csvRecords(text, cutShort) : jsonLines(text, cutShort);
}

/** The body as text, chunk by chunk; a failed read (a dropped connection) is `EXPORT_CUT_SHORT`. */
async function* bodyText(response: Response, signal: AbortSignal | undefined): AsyncGenerator<string, void, undefined> {
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let finished = false;
  try {
    for (;;) {
      let chunk: ReadableStreamReadResult<Uint8Array>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (signal?.aborted) throw error;
        const requestId = response.headers.get("X-Request-Id") ?? undefined;
        const cut = new TrellisError(response.status, "EXPORT_CUT_SHORT", 0, `the export's body was cut short: ${String(error)}`, [], requestId);
        throw Object.assign(cut, { cause: error });
      }
      if (chunk.done) break;
      yield decoder.decode(chunk.value, { stream: true });
    }
    finished = true;
    const rest = decoder.decode();
    if (rest) yield rest;
  } finally {
    // Left early (a `break`, an error): stop the download so the server's export ends too.
    if (!finished) await reader.cancel().catch(() => undefined);
  }
}

/** JSON lines: each `\n`-ended line parsed; text after the last line end means the body was cut short. */
async function* jsonLines(chunks: AsyncIterable<string>, cutShort: () => Error): AsyncGenerator<unknown, void, undefined> {
  let rest = "";
  for await (const chunk of chunks) {
    const text = rest + chunk;
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      const line = text.slice(start, end);
      start = end + 1;
      if (line.trim()) yield JSON.parse(line);
    }
    rest = text.slice(start);
  }
  if (rest.trim()) throw cutShort();
}

/**
 * RFC 4180 records (quoted cells may hold commas, quotes as `""`, and line ends), each as its cells.
 * The server ends every record with CRLF, so anything after the last one means the body was cut short.
 */
async function* csvRecords(chunks: AsyncIterable<string>, cutShort: () => Error): AsyncGenerator<string[], void, undefined> {
  let record: string[] = [];
  let cell = "";
  let state: "start" | "plain" | "quoted" | "quote" = "start"; // "quote": a `"` seen inside a quoted cell
  let between = true; // nothing read since the last record's end
  for await (const chunk of chunks) {
    for (const c of chunk) {
      between = false;
      if (state === "quoted") {
        if (c === '"') state = "quote";
        else cell += c;
        continue;
      }
      if (state === "quote") {
        if (c === '"') {
          cell += '"';
          state = "quoted";
          continue;
        }
        state = "plain";
      }
      if (c === '"' && state === "start") {
        state = "quoted";
      } else if (c === ",") {
        record.push(cell);
        cell = "";
        state = "start";
      } else if (c === "\n") {
        record.push(cell);
        yield record;
        record = [];
        cell = "";
        state = "start";
        between = true;
      } else if (c !== "\r") {
        cell += c;
        state = "plain";
      }
    }
  }
  if (!between) throw cutShort();
}
