// The real host: the WIT imports of the space-module world, behind the object trellis.js expects.
// Only the component imports this file (componentize-js resolves the `trellis:module/...` specifiers).
//
// An `s64` answer is read back with `asIntN(64, ...)`: componentize-js 0.23 lifts it from its unsigned bit
// pattern, so a negative total would arrive as a number near 2^64 (arguments: see build.mjs).
import * as keyValue from 'trellis:module/key-value@0.2.0';
import { log } from 'trellis:module/logging@0.2.0';
import { currentItem } from 'trellis:module/item-read@0.2.0';

export const host = {
  kv: {
    get: keyValue.get,
    set: keyValue.set,
    delete: keyValue.delete,
    listKeys: keyValue.listKeys,
    compareAndSwap: keyValue.compareAndSwap,
    increment: (key, delta) => BigInt.asIntN(64, BigInt(keyValue.increment(key, delta))),
  },
  log,
  currentItem,
};
