// Trellis SDK for JavaScript modules (WIT trellis:module@0.2.0, space-module world).
//
// The module's logic sees the host only through one small object (`host`: key-value, logging, item-read),
// so the same code runs inside the component (trellis-host.js) and under `node --test` (trellis-fake-host.js).

/** An error the module reports: the host records it (events) or answers 502 (routes). */
export class ModuleError extends Error {}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** The message of an error thrown by an import (componentize-js puts the WIT `err` in `payload`). */
function messageOf(err) {
  if (err && typeof err === 'object' && 'payload' in err) return String(err.payload);
  if (err instanceof Error) return err.message;
  return String(err);
}

/** A JSON response. */
export function json(status, value) {
  return { status, body: JSON.stringify(value) };
}

/** 200 with a JSON body. */
export function ok(value) {
  return json(200, value);
}

/** 404 with `{"error": "not found"}`. */
export function notFound() {
  return json(404, { error: 'not found' });
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

/** The request body parsed as JSON (undefined when empty). */
export function bodyJson(req) {
  const bytes = req.body ?? new Uint8Array();
  if (bytes.length === 0) return undefined;
  try {
    return JSON.parse(textDecoder.decode(bytes));
  } catch {
    throw new ModuleError('request body is not JSON');
  }
}

/**
 * A space module. `spec`: `manifest` (the WIT manifest record), `onEvent(ctx, event, t)`, `routes`
 * (a Router). `t` carries `kv`, `log`, `item()`, `config` and the `host`. Answers `bind(host)`, which gives
 * the two exports (`moduleInfo`, `spaceHooks`) the component needs (or a test calls).
 */
export function spaceModule(spec) {
  return {
    spec,
    bind(host) {
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
            guard(() => spec.onEvent?.(ctx, event, tools(ctx)));
          },
          handleRequest(ctx, req) {
            return guard(() => (spec.routes ? spec.routes.handle(req, tools(ctx)) : notFound()));
          },
        },
      };
    },
  };
}

/** Runs `f`; any exception becomes the WIT `err(string)` (thrown as a plain string, which the bindings lift). */
function guard(f) {
  try {
    return f();
  } catch (err) {
    // eslint-disable-next-line no-throw-literal
    throw messageOf(err);
  }
}
