// Errors: every non-2xx answer becomes one typed `TrellisError`, read from the error envelope (or,
// when the body is none, from the status).

/** One problem of a failed request: a JSON Pointer into the body (or `query.<name>`), a code, a message. */
export interface ErrorDetail {
  path: string;
  code: string;
  message: string;
}

/** A non-2xx answer, read from the error envelope `{"error": {code, numeric, message, details, requestId}}`. */
export class TrellisError extends Error {
  override readonly name = "TrellisError";

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The contract's code, e.g. `VALIDATION_FAILED`; `HTTP_<status>` when the body was no envelope. */
    readonly code: string,
    /** The code's number, e.g. 800; 0 when the body was no envelope. */
    readonly numeric: number,
    message: string,
    /** Every problem found, for validation failures; empty otherwise. */
    readonly details: ErrorDetail[],
    /** The request's id (`X-Request-Id`), for the server's log. */
    readonly requestId: string | undefined,
    /** Seconds to wait before trying again (`Retry-After` of a 429 or 503), when the answer said. */
    readonly retryAfter?: number,
  ) {
    super(`${status} ${code}: ${message}`);
  }

  /** The error a failed answer stands for; `body` is its parsed JSON, if any. */
  static from(response: Response, body: unknown): TrellisError {
    const error = isObject(body) && isObject(body.error) ? body.error : undefined;
    const requestId = str(error?.requestId) ?? response.headers.get("X-Request-Id") ?? undefined;
    const wait = Number(response.headers.get("Retry-After") ?? Number.NaN);
    const retryAfter = Number.isFinite(wait) ? wait : undefined;
    if (!error || typeof error.code !== "string") {
      const text = typeof body === "string" && body ? body : response.statusText || "request failed";
      return new TrellisError(response.status, `HTTP_${response.status}`, 0, text, [], requestId, retryAfter);
    }
    const details = Array.isArray(error.details)
      ? error.details.filter(isObject).map((d) => ({ path: str(d.path) ?? "", code: str(d.code) ?? "", message: str(d.message) ?? "" }))
      : [];
    const numeric = typeof error.numeric === "number" ? error.numeric : 0;
    return new TrellisError(response.status, error.code, numeric, str(error.message) ?? "", details, requestId, retryAfter);
  }

  /** The error a failed answer stands for, its body read here (JSON if it is, text otherwise). */
  static async read(response: Response): Promise<TrellisError> {
    const text = await response.text().catch(() => "");
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: kept as text
    }
    return TrellisError.from(response, body);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
