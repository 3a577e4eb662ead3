// An in-memory host for `node --test`: key-value with the host's semantics (compare-and-swap, increment
// on decimal ASCII text, errors on non-integers and overflow), captured log lines, a settable item. Once it
// knows the module's manifest (`mod.bind(host)` hands it over), it refuses what the real host refuses: a
// module whose component imports an interface its manifest does not ask for (at binding, as the host
// refuses it at load), and (`host.context(config)`) a configuration that breaks the manifest's configSchema,
// every problem listed.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ModuleError } from './trellis.js';

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

// The interface behind each permission: its name, but for `media-decode`.
const INTERFACE_OF = { 'media-decode': 'media' };
const PERMISSION_OF = { media: 'media-decode' };

/** `{permission, interface}` of an imported host interface. */
function imported(permission, version = '0.2.0') {
  return { permission, interface: `trellis:module/${INTERFACE_OF[permission] ?? permission}@${version}` };
}

/**
 * The host interfaces the module's component imports: those `wit/world.wit` (beside this file's folder, as
 * `npm run build` uses it) lists, since componentize-js imports every interface of its world; without that
 * file, the three the SDK's trellis-host.js imports.
 */
function worldImports() {
  let world;
  try {
    world = readFileSync(new URL('../wit/world.wit', import.meta.url), 'utf8');
  } catch {
    return ['key-value', 'logging', 'item-read'].map((permission) => imported(permission));
  }
  const found = world.replace(/\/\/.*$/gm, '').matchAll(/\bimport\s+trellis:module\/([a-z-]+)@([0-9.]+)\s*;/g);
  return [...found].map(([, name, version]) => imported(PERMISSION_OF[name] ?? name, version));
}

/**
 * A module whose component imports a host interface its manifest does not ask for the permission of: the
 * real host refuses to load it. The fake host throws this from `mod.bind(host)` (for every interface
 * `wit/world.wit` imports, used or not) and, for one the world does not import, where the module uses it.
 * The SDK passes it on as it is (not as a module failure), so a test fails with the host's reason and the
 * fix: `permissions` lists what is missing, and the message gives the line to add for each.
 */
export class PermissionRefused extends Error {
  constructor(moduleId, imports) {
    const reasons = imports.map(
      ({ permission, interface: name }) =>
        `imports ${name} without asking for the "${permission}" permission: add it to the manifest ` +
        `(\`permissions: [{ tag: '${permission}' }, ...]\`)`,
    );
    super(`the host refuses to load module "${moduleId}": it ${reasons.join('; it ')}`);
    this.name = 'PermissionRefused';
    this.refusedByHost = true;
    this.permissions = imports.map(({ permission }) => permission);
  }
}

/**
 * A configuration that breaks the manifest's configSchema, as the host refuses it when a space connects the
 * module: `problems` lists every one as `{path, message}` (`path` a JSON Pointer into the configuration, ''
 * for the whole of it), and the message lists them as `path: message; ...`.
 */
export class ConfigRefused extends ModuleError {
  constructor(problems) {
    const listed = problems.map(({ path, message }) => `${path}: ${message}`).join('; ');
    super(`the configuration breaks the module's schema: ${listed}`);
    this.name = 'ConfigRefused';
    this.problems = problems;
  }
}

export class FakeHost {
  /**
   * `imports`: the permissions whose interfaces the module's component imports (default: those of
   * `wit/world.wit`), which its manifest must ask for.
   */
  constructor({ imports = undefined } = {}) {
    this.store = new Map();
    this.logs = [];
    this.item = undefined;
    this.manifest = undefined;
    this.imports = imports === undefined ? worldImports() : imports.map((permission) => imported(permission));
    const store = this.store;
    const kv = {
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
    // Every key-value call needs the permission.
    const checked = ([name, call]) => [
      name,
      (...args) => {
        this.need('key-value');
        return call(...args);
      },
    ];
    this.kv = Object.fromEntries(Object.entries(kv).map(checked));
  }

  /**
   * The module's manifest (the WIT record: `permissions: [{ tag }]`, `configSchema` as JSON text), which
   * `mod.bind(host)` hands over. Throws `PermissionRefused` when the component imports an interface the
   * manifest does not ask for; from then on a capability it does not ask for throws too, and `context`
   * checks configurations against its schema. Without a manifest everything is allowed, as before.
   */
  useManifest(manifest) {
    const asked = permissionsOf(manifest);
    const missing = this.imports.filter(({ permission }) => !asked.includes(permission));
    if (missing.length > 0) throw new PermissionRefused(manifest.id ?? '', missing);
    this.manifest = manifest;
    this.validator = undefined;
    return this;
  }

  /**
   * The `ctx` a hook gets, as the host builds it for a space that connects the module with `config` (an
   * object, or JSON text; '', null or undefined: none, which the host takes as `{}`). With a manifest, a
   * configuration that breaks its configSchema throws `ConfigRefused`, listing every problem.
   */
  context(config = {}, spaceId = 'space-1') {
    let value = config ?? {};
    if (typeof value === 'string') {
      try {
        value = value.trim() === '' ? {} : JSON.parse(value);
      } catch (err) {
        throw new ModuleError(`configuration is not JSON: ${err.message}`);
      }
    }
    if (this.manifest !== undefined) {
      this.validator ??= configValidator(this.manifest);
      const problems = this.validator(value);
      if (problems.length > 0) throw new ConfigRefused(problems);
    }
    return { spaceId, config: JSON.stringify(value) };
  }

  /** Throws `PermissionRefused` when the manifest does not ask for `permission`. */
  need(permission) {
    if (this.manifest === undefined || permissionsOf(this.manifest).includes(permission)) return;
    throw new PermissionRefused(this.manifest.id ?? '', [imported(permission)]);
  }

  log(level, message) {
    this.need('logging');
    this.logs.push({ level, message });
  }

  currentItem() {
    this.need('item-read');
    return this.item === undefined ? undefined : JSON.stringify(this.item);
  }

  /** The item the next event reads. */
  setItem(item) {
    this.item = item;
  }

  /**
   * Runs `handler` (a call of the module's hook or route) as the real host runs a call: when it fails
   * (throws, or returns a promise that rejects) its key-value writes are dropped and the store is as it
   * was before the call; the failure is thrown on. Logs stay, as they do there.
   */
  call(handler) {
    const before = new Map(this.store);
    const restore = () => {
      this.store.clear();
      for (const [key, value] of before) this.store.set(key, value);
    };
    let answer;
    try {
      answer = handler();
    } catch (err) {
      restore();
      throw err;
    }
    if (answer !== null && typeof answer === 'object' && typeof answer.then === 'function') {
      return answer.then(undefined, (err) => {
        restore();
        throw err;
      });
    }
    return answer;
  }

  /** The text stored at `key` (undefined when absent). */
  text(key) {
    return this.store.has(key) ? decoder.decode(this.store.get(key)) : undefined;
  }
}

/** The permission names a manifest asks for (`[{ tag: 'key-value' }, { tag: 'outbound-http', val }]`). */
function permissionsOf(manifest) {
  return (manifest.permissions ?? []).map((p) => (typeof p === 'string' ? p : p?.tag));
}

/**
 * The configuration's problems by the manifest's configSchema, `[{path, message}]` (empty: it fits). Throws a
 * `ModuleError` for a schema the host would refuse at load. Checked with Ajv the way the host's validator
 * (the Rust crate jsonschema) does: the draft its `$schema` names (2020-12 without one), every problem,
 * unknown keywords ignored, `format` asserted only in drafts 7 and 6 (an annotation in 2019-09 and 2020-12).
 */
export function checkConfig(manifest, config) {
  return configValidator(manifest)(config);
}

const require = createRequire(import.meta.url);
const DRAFTS = [
  { pattern: /^https?:\/\/json-schema\.org\/draft\/2020-12\/schema#?$/, ajv: 'ajv/dist/2020.js', formats: false },
  { pattern: /^https?:\/\/json-schema\.org\/draft\/2019-09\/schema#?$/, ajv: 'ajv/dist/2019.js', formats: false },
  { pattern: /^https?:\/\/json-schema\.org\/draft-07\/schema#?$/, ajv: 'ajv', formats: true },
  {
    pattern: /^https?:\/\/json-schema\.org\/draft-06\/schema#?$/,
    ajv: 'ajv',
    formats: true,
    meta: 'ajv/dist/refs/json-schema-draft-06.json',
  },
];

function configValidator(manifest) {
  const text = manifest.configSchema ?? '{}';
  let schema;
  try {
    schema = typeof text === 'string' ? JSON.parse(text) : text;
  } catch (err) {
    throw new ModuleError(`configSchema is not JSON: ${err.message}`);
  }
  const declared = typeof schema === 'object' && schema !== null ? schema.$schema : undefined;
  const draft = declared === undefined ? DRAFTS[0] : DRAFTS.find((d) => d.pattern.test(String(declared)));
  if (draft === undefined) {
    throw new ModuleError(
      `configSchema's $schema ${JSON.stringify(declared)}: the fake host checks drafts 2020-12, 2019-09, 7 and 6`,
    );
  }
  let validate;
  try {
    validate = ajvFor(draft).compile(schema);
  } catch (err) {
    throw new ModuleError(`configSchema is not a valid JSON Schema: ${err.message}`);
  }
  return (config) => (validate(config) ? [] : validate.errors.map(problem));
}

const ajvs = new Map();

function ajvFor(draft) {
  if (!ajvs.has(draft)) {
    let Ajv;
    try {
      Ajv = require(draft.ajv);
    } catch (err) {
      throw new ModuleError(
        `the fake host checks configurations with ajv, which is not installed here: run \`npm ci\` (${err.message})`,
      );
    }
    const ajv = new (Ajv.default ?? Ajv)({ allErrors: true, strict: false, validateFormats: draft.formats });
    if (draft.meta) ajv.addMetaSchema(require(draft.meta));
    if (draft.formats) {
      const addFormats = require('ajv-formats');
      (addFormats.default ?? addFormats)(ajv);
    }
    ajvs.set(draft, ajv);
  }
  return ajvs.get(draft);
}

/** One of Ajv's errors as `{path, message}`, naming what Ajv's message leaves to its params. */
function problem({ instancePath, message, params }) {
  let text = message ?? 'is not valid';
  if (params?.additionalProperty !== undefined) text += ` ('${params.additionalProperty}' was unexpected)`;
  if (params?.unevaluatedProperty !== undefined) text += ` ('${params.unevaluatedProperty}' was unexpected)`;
  if (params?.allowedValues !== undefined) text += `: ${JSON.stringify(params.allowedValues)}`;
  if (params?.allowedValue !== undefined) text += `: ${JSON.stringify(params.allowedValue)}`;
  return { path: instancePath, message: text };
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
