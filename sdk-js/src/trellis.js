// Trellis SDK for JavaScript modules (WIT trellis:module@0.2.0, space-module world).
//
// The module's logic sees the host only through one small object (`host`: key-value, logging, item-read),
// so the same code runs inside the component (trellis-host.js) and under `node --test` (trellis-fake-host.js).

/**
 * A failure of the module itself (a broken invariant, a host call that failed): the host records it (events)
 * or answers 502 MODULE_FAILED (routes) and logs the message. For a client's mistake, answer a 4xx instead:
 * return `badRequest(...)`/`error(...)`, or throw an `HttpError`.
 */
export class ModuleError extends Error {}

/**
 * A 4xx (or 5xx) answer a route throws: `handleRequest` answers it as `error(status, code, message, details)`
 * rather than failing the call. Thrown from an event, it is a failure like any other.
 */
export class HttpError extends Error {
  constructor(status, code, message, details = []) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** 400 VALIDATION_FAILED. */
  static badRequest(message, details = []) {
    return new HttpError(400, 'VALIDATION_FAILED', message, details);
  }

  /** The answer it stands for. */
  response() {
    return error(this.status, this.code, this.message, this.details);
  }
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** The message of an error thrown by an import (componentize-js puts the WIT `err` in `payload`). */
function messageOf(err) {
  if (err && typeof err === 'object' && 'payload' in err) return String(err.payload);
  if (err instanceof Error) return err.message;
  return String(err);
}

/**
 * What the fake host (trellis-fake-host.js) throws for what the real host refuses before the module runs (a
 * capability the manifest did not ask for): passed on as it is, so the test sees the reason and the fix.
 */
function refusedByHost(err) {
  return err instanceof Error && err.refusedByHost === true;
}

/** A JSON response. */
export function json(status, value) {
  return { status, body: JSON.stringify(value) };
}

/** 200 with a JSON body. */
export function ok(value) {
  return json(200, value);
}

/** 404 with `{"error": "not found"}` (the client gets 404 NOT_FOUND "not found"). */
export function notFound() {
  return json(404, { error: 'not found' });
}

/**
 * An error answer in the contract's envelope, `{"error": {code, message, details}}`, which the host passes on
 * to the client. `status` is 400 to 599; `code` is the contract's code for it (VALIDATION_FAILED 400,
 * FORBIDDEN 403, NOT_FOUND 404, CONFLICT 409, ...: another code is replaced by the status's own);
 * `details` lists problems as `{path, code, message}`, `path` a JSON Pointer into the body (`/choice`) or
 * `query.<name>`.
 */
export function error(status, code, message, details = []) {
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new TypeError(`an error answer needs a status from 400 to 599, not ${status}`);
  }
  const problems = [...details].map(({ path = '', code: problem = '', message: text = '' }) => ({
    path: String(path),
    code: String(problem),
    message: String(text),
  }));
  const body = { code: String(code), message: String(message) };
  return json(status, { error: problems.length > 0 ? { ...body, details: problems } : body });
}

/** 400 VALIDATION_FAILED with `message` and the problems behind it (`[{path, code, message}]`). */
export function badRequest(message, details = []) {
  return error(400, 'VALIDATION_FAILED', message, details);
}

/** The space's configuration of the module (`ctx.config` parsed; `{}` when empty), over `defaults`. */
export function config(ctx, defaults = {}) {
  const text = ctx.config ?? '';
  if (text.trim() === '') return { ...defaults };
  try {
    return { ...defaults, ...JSON.parse(text) };
  } catch (err) {
    throw new ModuleError(`configuration is not JSON: ${messageOf(err)}`);
  }
}

/** Key-value helpers over the host's store (values are bytes; JSON and integers on top). */
export class Kv {
  constructor(host) {
    this.host = host;
  }

  /** The bytes at `key`, or undefined. */
  get(key) {
    return this.host.kv.get(key) ?? undefined;
  }

  getText(key) {
    const bytes = this.get(key);
    return bytes === undefined ? undefined : textDecoder.decode(bytes);
  }

  /** The JSON value at `key`, or `fallback` when absent. */
  getJson(key, fallback = undefined) {
    const text = this.getText(key);
    return text === undefined ? fallback : JSON.parse(text);
  }

  set(key, value) {
    const bytes = typeof value === 'string' ? textEncoder.encode(value) : value;
    this.call(() => this.host.kv.set(key, bytes));
  }

  setJson(key, value) {
    this.set(key, JSON.stringify(value));
  }

  delete(key) {
    this.host.kv.delete(key);
  }

  /** Keys beginning with `prefix`, after `startAfter`, at most `limit`. */
  listKeys(prefix, startAfter = undefined, limit = 1000) {
    return this.host.kv.listKeys(prefix, startAfter, limit);
  }

  /** An integer read as the decimal text `increment` keeps (0 when absent). */
  getInt(key) {
    const text = this.getText(key);
    return text === undefined ? 0 : Number(text);
  }

  /** Adds `delta` atomically and answers the new value (a Number). */
  increment(key, delta = 1) {
    return Number(this.call(() => this.host.kv.increment(key, BigInt(delta))));
  }

  /** Stores `next` only if the key holds `expected` now (undefined: absent; strings are UTF-8). */
  compareAndSwap(key, expected, next) {
    const bytes = (v) => (v === undefined ? undefined : typeof v === 'string' ? textEncoder.encode(v) : v);
    return this.call(() => this.host.kv.compareAndSwap(key, bytes(expected), bytes(next)));
  }

  /**
   * Replaces the JSON value at `key` with `update(current)` (current: undefined when absent; return
   * undefined to delete), retrying on concurrent changes. Answers `[previous, next]`.
   */
  updateJson(key, update, attempts = 100) {
    for (let i = 0; i < attempts; i += 1) {
      const before = this.getText(key);
      const previous = before === undefined ? undefined : JSON.parse(before);
      const next = update(previous);
      const after = next === undefined ? undefined : JSON.stringify(next);
      if (this.compareAndSwap(key, before, after)) return [previous, next];
    }
    throw new ModuleError(`${key} changed ${attempts} times while updating it`);
  }

  call(f) {
    try {
      return f();
    } catch (err) {
      if (refusedByHost(err)) throw err;
      throw new ModuleError(messageOf(err));
    }
  }
}

/** Logging through the host (one line per call, attributed to the module). */
export class Log {
  constructor(host) {
    this.host = host;
  }
  trace(message) { this.host.log('trace', String(message)); }
  debug(message) { this.host.log('debug', String(message)); }
  info(message) { this.host.log('info', String(message)); }
  warn(message) { this.host.log('warn', String(message)); }
  error(message) { this.host.log('error', String(message)); }
}

/** The item that triggered the event, parsed, or undefined. */
function currentItem(host) {
  const text = host.currentItem() ?? undefined;
  return text === undefined ? undefined : JSON.parse(text);
}

/** Routes: method + path pattern (`/items/:id`) → handler(req, params, t). */
export class Router {
  constructor() {
    this.routes = [];
  }

  on(method, pattern, handler) {
    this.routes.push({ method, segments: split(pattern), handler });
    return this;
  }
  get(pattern, handler) { return this.on('get', pattern, handler); }
  post(pattern, handler) { return this.on('post', pattern, handler); }
  put(pattern, handler) { return this.on('put', pattern, handler); }
  patch(pattern, handler) { return this.on('patch', pattern, handler); }
  delete(pattern, handler) { return this.on('delete', pattern, handler); }

  /** The handler's response, or 404 when no route matches. */
  handle(req, t) {
    const path = split(req.path);
    for (const route of this.routes) {
      if (route.method !== req.method || route.segments.length !== path.length) continue;
      const params = {};
      const matches = route.segments.every((seg, i) => {
        if (seg.startsWith(':')) {
          params[seg.slice(1)] = decodeURIComponent(path[i]);
          return true;
        }
        return seg === path[i];
      });
      if (matches) return route.handler(req, params, t);
    }
    return notFound();
  }
}

function split(path) {
  return path.split('/').filter((s) => s !== '');
}

/** The request body parsed as JSON (undefined when empty); a body that is not JSON answers 400. */
export function bodyJson(req) {
  const bytes = req.body ?? new Uint8Array();
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(textDecoder.decode(bytes));
  } catch {
    throw HttpError.badRequest('request body is not JSON', [{ path: '', code: 'NOT_JSON', message: 'is not JSON' }]);
  }
}

/**
 * A space module. `spec`: `manifest` (the WIT manifest record), `onEvent(ctx, event, t)`, `routes`
 * (a Router). `t` carries `kv`, `log`, `item()`, `config` and the `host`. Answers `bind(host)`, which gives
 * the two exports (`moduleInfo`, `spaceHooks`) the component needs (or a test calls). Bound to a
 * `FakeHost`, the module's manifest goes to it, which then refuses what the real host would, and each hook
 * runs through its `call`, as one call of the host: one that fails keeps none of its key-value writes.
 */
export function spaceModule(spec) {
  return {
    spec,
    bind(host) {
      host.useManifest?.(spec.manifest);
      const asOneCall = typeof host.call === 'function' ? (f) => host.call(f) : (f) => f();
      const tools = (ctx) => ({
        host,
        ctx,
        kv: new Kv(host),
        log: new Log(host),
        item: () => currentItem(host),
        config: config(ctx, spec.configDefaults ?? {}),
      });
      return {
        moduleInfo: { manifest: () => spec.manifest },
        spaceHooks: {
          onEvent(ctx, event) {
            asOneCall(() => guard(() => spec.onEvent?.(ctx, event, tools(ctx))));
          },
          handleRequest(ctx, req) {
            return asOneCall(() =>
              guard(() => {
                try {
                  return spec.routes ? spec.routes.handle(req, tools(ctx)) : notFound();
                } catch (err) {
                  if (err instanceof HttpError) return err.response();
                  throw err;
                }
              }),
            );
          },
        },
      };
    },
  };
}

/**
 * Runs `f`; any exception becomes the WIT `err(string)` (thrown as a plain string, which the bindings lift).
 * A `ModuleError` is its message; anything else was not meant to happen, so its stack goes to stderr (the
 * host's log) and the message names its type and where it was thrown.
 */
function guard(f) {
  try {
    return f();
  } catch (err) {
    if (refusedByHost(err)) throw err;
    if (err instanceof ModuleError) throw err.message;
    const where = origin(err);
    const head = `${err instanceof Error ? err.name : 'uncaught'}: ${messageOf(err)}${where ? ` (at ${where})` : ''}`;
    const stack = frames(err).slice(0, 12).map((frame) => `    at ${frame}`);
    console.error([head, ...stack].join('\n'));
    // eslint-disable-next-line no-throw-literal
    throw head;
  }
}

/**
 * The stack's frames, innermost first, as `function@file:line:column` (StarlingMonkey) or V8's text; the
 * host logs at most 20 lines of a call's stderr, so the innermost frames are the ones to keep.
 */
function frames(err) {
  const stack = err instanceof Error && typeof err.stack === 'string' ? err.stack : '';
  return stack
    .split('\n')
    .map((line) => line.trim().replace(/^at /, ''))
    .filter((line) => /:\d+:\d+\)?$/.test(line));
}

/** `file:line:column` of the innermost frame outside the SDK (the SDK's own when there is none). */
function origin(err) {
  const places = frames(err).map((frame) => /([^\s@(]+:\d+:\d+)\)?$/.exec(frame)?.[1]).filter(Boolean);
  return places.find((place) => !/(^|\/)trellis(-host|-fake-host)?\.js:/.test(place)) ?? places[0];
}
