// An in-memory host for `node --test`: key-value with the host's semantics (compare-and-swap, increment
// on decimal ASCII text, errors on non-integers and overflow), captured log lines, a settable item.

const MAX = 2n ** 63n - 1n;
const MIN = -(2n ** 63n);
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function hostError(message) {
  return Object.assign(new Error(message), { payload: message });
}

function same(a, b) {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class FakeHost {
  constructor() {
    this.store = new Map();
    this.logs = [];
    this.item = undefined;
    const store = this.store;
    this.kv = {
      get: (key) => (store.has(key) ? Uint8Array.from(store.get(key)) : undefined),
      set: (key, value) => {
        store.set(key, Uint8Array.from(value));
      },
      delete: (key) => {
        store.delete(key);
      },
      listKeys: (prefix, startAfter, limit) =>
        [...store.keys()]
          .filter((k) => k.startsWith(prefix) && (startAfter === undefined || k > startAfter))
          .sort()
          .slice(0, Math.min(limit, 1000)),
      compareAndSwap: (key, expected, next) => {
        if (!same(store.get(key), expected)) return false;
        if (next === undefined) store.delete(key);
        else store.set(key, Uint8Array.from(next));
        return true;
      },
      increment: (key, delta) => {
        const text = store.has(key) ? decoder.decode(store.get(key)) : '0';
        if (!/^-?[0-9]+$/.test(text)) throw hostError(`value of ${key} is not a decimal integer`);
        const sum = BigInt(text) + BigInt(delta);
        if (sum > MAX || sum < MIN) throw hostError(`increment of ${key} overflows`);
        store.set(key, encoder.encode(sum.toString()));
        return sum;
      },
    };
  }

  log(level, message) {
    this.logs.push({ level, message });
  }

  currentItem() {
    return this.item === undefined ? undefined : JSON.stringify(this.item);
  }

  /** The item the next event reads. */
  setItem(item) {
    this.item = item;
  }

  /** The text stored at `key` (undefined when absent). */
  text(key) {
    return this.store.has(key) ? decoder.decode(this.store.get(key)) : undefined;
  }
}

/** A request record as the host passes it. */
export function request(method, path, body = undefined, role = 'owner') {
  const bytes = body === undefined ? new Uint8Array() : encoder.encode(JSON.stringify(body));
  return { method, path, query: '', body: bytes, callerUserId: 'u1', callerHandle: 'ann', callerRole: role };
}

/** The response's body parsed as JSON. */
export function responseJson(response) {
  return response.body === '' ? undefined : JSON.parse(response.body);
}

// The contract's codes and their statuses, and the code of a bare status (the host's `status_of` and
// `code_for_status`): a module's code reaches the client only under its own status.
const CODE_STATUS = {
  VALIDATION_FAILED: 400, PIN_INVALID: 400, UNAUTHENTICATED: 401, LICENSE_REQUIRED: 401, FORBIDDEN: 403,
  ENTITLEMENT_LIMIT_EXCEEDED: 403, LICENSE_INVALID: 403, NOT_FOUND: 404, FEATURE_DISABLED: 404,
  METHOD_NOT_ALLOWED: 405, CONFLICT: 409, INVALID_TRANSITION: 409, MAX_FILES_EXCEEDED: 409,
  PRECONDITION_FAILED: 412, PAYLOAD_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415, RATE_LIMITED: 429,
  INTERNAL: 500, MODULE_FAILED: 502, MEDIA_UNAVAILABLE: 503, SERVICE_UNAVAILABLE: 503,
};
const STATUS_CODE = {
  400: 'VALIDATION_FAILED', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT', 412: 'PRECONDITION_FAILED', 413: 'PAYLOAD_TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED', 429: 'RATE_LIMITED', 503: 'MEDIA_UNAVAILABLE',
};
const REASON = {
  400: 'bad request', 401: 'unauthorized', 403: 'forbidden', 404: 'not found', 405: 'method not allowed',
  409: 'conflict', 410: 'gone', 412: 'precondition failed', 413: 'payload too large', 415: 'unsupported media type',
  422: 'unprocessable entity', 429: 'too many requests', 500: 'internal server error', 501: 'not implemented',
  502: 'bad gateway', 503: 'service unavailable', 504: 'gateway timeout',
};

/**
 * What the HTTP client receives for an error answer, by the host's rules: `{code, message, details?}` of the
 * contract's envelope (its `numeric` and `requestId` left out); undefined for a success. The module's code,
 * message and details are kept from an envelope (the code only under its own status); `{"error": "text"}` or
 * `{"message": "text"}` give the message; otherwise it is the status's reason.
 */
export function clientError(response) {
  if (response.status < 400) return undefined;
  let body;
  try {
    body = JSON.parse(response.body);
  } catch {
    body = undefined;
  }
  const error = body?.error;
  const code = CODE_STATUS[error?.code] === response.status ? error.code : (STATUS_CODE[response.status] ?? 'INTERNAL');
  const text = [error?.message, error, body?.message].find((m) => typeof m === 'string' && m.trim() !== '');
  const message = text === undefined ? (REASON[response.status] ?? 'error') : [...text].slice(0, 500).join('');
  if (!Array.isArray(error?.details)) return { code, message };
  const field = (d, key) => (typeof d?.[key] === 'string' ? d[key] : '');
  const details = error.details.map((d) => ({
    path: field(d, 'path'),
    code: field(d, 'code'),
    message: field(d, 'message'),
  }));
  return { code, message, details };
}
