// Module routes: a module defines its own paths under a space, which the document cannot type.
import type { Trellis } from "./client.js";
import { TrellisError } from "./errors.js";

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
