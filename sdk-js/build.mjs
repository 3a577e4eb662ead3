// node build.mjs ENTRY.js OUT.wasm [WIT_DIR]: builds a component with componentize-js (a Wizer snapshot of
// StarlingMonkey with the module already evaluated). WASI features the host does not grant are disabled:
// no clocks, random or HTTP; stdio stays so console output reaches the host's logs.
import { componentize } from '@bytecodealliance/componentize-js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const [entry, out, wit] = process.argv.slice(2);
if (!entry || !out) {
  console.error('usage: node build.mjs ENTRY.js OUT.wasm [WIT_DIR]');
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
await lowerS64FromItsBitPattern();
const { component } = await componentize({
  sourcePath: resolve(entry),
  witPath: resolve(wit ?? resolve(here, 'wit')),
  worldName: 'space-module',
  disableFeatures: ['random', 'clocks', 'http', 'fetch-event'],
});
await mkdir(dirname(resolve(out)), { recursive: true });
await writeFile(resolve(out), component);
console.log(`${out}: ${component.length} bytes`);

// componentize-js 0.23 passes an `s64` argument of an import through the bindings' `toInt64` (a signed
// BigInt) to the engine's `coreabi_from_bigint64`, which takes only 0..2^64 and aborts the component on a
// negative value ("Internal bindgen error in coreabi_from_bigint64 validation";
// bytecodealliance/ComponentizeJS#343): `kv.increment(key, -1n)` trapped. The generated bindings get a
// `toInt64` that hands over the same 64 bits unsigned instead, which the engine reads back as the signed
// value. A build whose bindings have a `toInt64` of another shape stops here rather than ship the bug.
async function lowerS64FromItsBitPattern() {
  const entry = import.meta.resolve('@bytecodealliance/componentize-js');
  const { splicer } = await import(new URL('../lib/spidermonkey-embedding-splicer.js', entry).href);
  const splice = splicer.spliceBindings;
  splicer.spliceBindings = (...args) => {
    const spliced = splice(...args);
    return { ...spliced, jsBindings: unsignedToInt64(spliced.jsBindings) };
  };
}

function unsignedToInt64(bindings) {
  if (!bindings.includes('function toInt64(')) return bindings;
  const signed = /function toInt64\(val\)\s*\{\s*const converted = BigInt\(val\);?\s*return BigInt\.asIntN\(64, converted\);?\s*\}/;
  if (!signed.test(bindings)) {
    throw new Error('build.mjs: the bindings\' toInt64 has an unknown shape; check the s64 lowering (see lowerS64FromItsBitPattern)');
  }
  return bindings.replace(signed, 'function toInt64(val) { return BigInt.asUintN(64, BigInt(val)); }');
}
