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
const { component } = await componentize({
  sourcePath: resolve(entry),
  witPath: resolve(wit ?? resolve(here, 'wit')),
  worldName: 'space-module',
  disableFeatures: ['random', 'clocks', 'http', 'fetch-event'],
});
await mkdir(dirname(resolve(out)), { recursive: true });
await writeFile(resolve(out), component);
console.log(`${out}: ${component.length} bytes`);
