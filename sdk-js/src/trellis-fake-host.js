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
