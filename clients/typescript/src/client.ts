// The client itself: `createTrellis` (the license key and the session on every request), `ok`
// turning an openapi-fetch outcome into its data or a `TrellisError`, and the types the other
// modules share.
import createClient, { type Client } from "openapi-fetch";

import { TrellisError } from "./errors.js";
import type { paths } from "./schema.js";

/** The typed openapi-fetch client over every documented route. */
export type Api = Client<paths>;

/** What `createTrellis` needs: where the server is and the deployment's license key. */
export interface TrellisOptions {
  /** The server's origin, e.g. `http://127.0.0.1:8080` (the paths start with `/v0`). */
  baseUrl: string;
  /** Sent as `X-License-Key` on every request. */
  licenseKey: string;
  /** A session token from sign-up or login, sent as `Authorization: Bearer`. */
  token?: string;
  /** Another fetch (tests, proxies); `globalThis.fetch` by default. */
  fetch?: (request: Request) => Promise<Response>;
}

/** A client: `api` for the typed calls; `token` may be set or cleared at any time. */
export interface Trellis {
  readonly api: Api;
  readonly baseUrl: string;
  readonly licenseKey: string;
  /** The session token the next requests carry, if any; `signUp` and `login` set it. */
  token: string | undefined;
  /** A fetch that adds the license key and the session, for what the document does not type. */
  fetch(path: string, init?: RequestInit): Promise<Response>;
}

/** Creates a client whose every request carries `X-License-Key` and, once known, the session. */
export function createTrellis(options: TrellisOptions): Trellis {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<paths>({ baseUrl, fetch: send });
  const trellis: Trellis = {
    api,
    baseUrl,
    licenseKey: options.licenseKey,
    token: options.token,
    fetch(path, init = {}) {
      const request = new Request(baseUrl + path, init);
      authorize(request.headers);
      return send(request);
    },
  };
  function authorize(headers: Headers): void {
    headers.set("X-License-Key", trellis.licenseKey);
    if (trellis.token) {
      headers.set("Authorization", `Bearer ${trellis.token}`);
    }
  }
  api.use({
    onRequest({ request }) {
      authorize(request.headers);
      return request;
    },
  });
  return trellis;
}

/** What an openapi-fetch call resolves to (paging.ts uses it too; index.ts does not export it). */
export interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a thrown `TrellisError`:
 * `const me = await ok(trellis.api.GET("/v0/users/me"))`.
 */
export async function ok<T>(call: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    throw TrellisError.from(response, error);
  }
  return data as T;
}

/** The JSON request body of an operation: `RequestBody<"/v0/spaces", "post">`. */
export type RequestBody<Path extends keyof paths, Method extends keyof paths[Path]> = paths[Path][Method] extends {
  requestBody?: { content: { "application/json": infer Body } };
}
  ? Body
  : never;
