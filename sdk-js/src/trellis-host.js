// The real host: the WIT imports of the space-module world, behind the object trellis.js expects.
// Only the component imports this file (componentize-js resolves the `trellis:module/...` specifiers).
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
    increment: keyValue.increment,
  },
  log,
  currentItem,
};
