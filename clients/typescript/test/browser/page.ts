// What the browser test's page runs (bundled by esbuild in cors.test.ts): from its own origin, it signs
// in through the TypeScript client, lists the user's spaces and reads the headers CORS exposes, then
// leaves the outcome in `window.trellisResult` for the test to read. The server, license key and user
// come in the page's fragment as JSON.
import { createTrellis, login, paginate } from "../../src/index.js";

export interface PageResult {
  ok: boolean;
  origin: string;
  spaces?: string[];
  requestId?: string | null;
  etag?: string | null;
  error?: string;
  errorName?: string;
}

interface PageConfig {
  base: string;
  licenseKey: string;
  login: string;
  password: string;
}

declare global {
  interface Window {
    trellisResult?: PageResult;
  }
}

async function run(config: PageConfig): Promise<PageResult> {
  const trellis = createTrellis({ baseUrl: config.base, licenseKey: config.licenseKey });
  await login(trellis, config.login, config.password);
  const spaces: string[] = [];
  for await (const space of paginate((cursor) => trellis.api.GET("/v0/spaces", { params: { query: { cursor, limit: 1 } } }))) {
    spaces.push(space.name);
  }
  // Headers a browser may read only when the server exposes them.
  const { response } = await trellis.api.GET("/v0/users/me");
  if (!response.ok) throw new Error(`GET /v0/users/me answered ${response.status}`);
  return { ok: true, origin: location.origin, spaces, requestId: response.headers.get("X-Request-Id"), etag: response.headers.get("ETag") };
}

const config = JSON.parse(decodeURIComponent(location.hash.slice(1))) as PageConfig;
run(config).then(
  (result) => {
    window.trellisResult = result;
  },
  (error: unknown) => {
    window.trellisResult = {
      ok: false,
      origin: location.origin,
      error: error instanceof Error ? error.message : String(error),
      errorName: error instanceof Error ? error.name : typeof error,
    };
  },
);
