// Word count in JavaScript (`word-count-js`): the port of the Rust example (plugins/examples/word-count) on
// the JavaScript SDK. Counts the words of form instances' text answers; totals kept with compare-and-swap
// and increment so concurrent events count right. `POST /count` counts a text, or answers 400.
import { Router, ModuleError, badRequest, bodyJson, ok, spaceModule } from '../../../sdk-js/src/trellis.js';

const MODULE_ID = 'word-count-js';

export const manifest = {
  id: MODULE_ID,
  name: 'Word count (JavaScript)',
  version: '0.2.0',
  kind: 'space',
  description: "Counts the words in the text answers of the space's form instances",
  configSchema: JSON.stringify({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    properties: { ignoreFields: { type: 'array', items: { type: 'string' } } },
  }),
  permissions: [{ tag: 'key-value' }, { tag: 'item-read' }, { tag: 'logging' }],
};

// StarlingMonkey has no Unicode property escapes (`\p{L}`): digits, cased letters (the test below) and the
// main uncased scripts (Hebrew, Arabic, Indic, Thai, Hangul, kana, CJK) stand for "a letter or digit".
const ALNUM = /[0-9\u00AA\u00BA\u05D0-\u05EA\u0620-\u064A\u0660-\u0669\u0900-\u0DFF\u0E00-\u0E7F\u1100-\u11FF\u3040-\u30FF\u3400-\u9FFF\uAC00-\uD7AF\uF900-\uFAFF]/;

/** Words in an answer: tokens with a letter or digit; a list sums its strings; anything else is 0. */
export function countWords(answer) {
  if (typeof answer === 'string') {
    return answer.split(/\s+/).filter((w) => ALNUM.test(w) || w.toLowerCase() !== w.toUpperCase()).length;
  }
  if (Array.isArray(answer)) return answer.reduce((sum, a) => sum + countWords(a), 0);
  return 0;
}

function onEvent(ctx, event, t) {
  if (event.kind === 'comment-created') {
    t.kv.increment('comments', 1);
    return;
  }
  if (event.kind !== 'form-instance-created' && event.kind !== 'form-instance-updated') return;
  const instance = t.item();
  if (instance === undefined) return;
  const ignore = new Set(t.config.ignoreFields ?? []);
  const fields = instance.payload?.fields;
  let words = 0;
  if (fields && typeof fields === 'object' && !Array.isArray(fields)) {
    for (const [id, answer] of Object.entries(fields)) {
      if (!ignore.has(id)) words += countWords(answer);
    }
  }
  // The item's count swaps atomically; the totals then move by the difference.
  const [previous] = t.kv.updateJson(`item/${event.itemId}`, () => words);
  if (previous === undefined) t.kv.increment('items', 1);
  const delta = words - (previous ?? 0);
  if (delta !== 0 || previous === undefined) t.kv.increment('words', delta);
  t.log.debug(`${event.itemId} has ${words} words`);
}

const routes = new Router()
  .get('/stats', (_req, _params, t) =>
    ok({ items: t.kv.getInt('items'), words: t.kv.getInt('words'), comments: t.kv.getInt('comments') }),
  )
  .get('/config', (_req, _params, t) => ok(t.config))
  .post('/spin', () => {
    for (;;) {
      // never returns: the host stops it at its deadline
    }
  })
  .post('/count', (req) => {
    const text = bodyJson(req)?.text;
    if (typeof text !== 'string') {
      const problem = { path: '/text', code: 'REQUIRED', message: 'must be a string' };
      return badRequest('text must be a string', [problem]);
    }
    return ok({ words: countWords(text) });
  })
  .post('/fail', () => {
    throw new ModuleError('asked to fail');
  })
  .post('/crash', () => {
    const asked = undefined;
    return ok(asked.crash); // a TypeError: the host's log names this file and line
  })
  .post('/print', () => {
    console.log(`hello from ${MODULE_ID}`);
    console.error(`hello from ${MODULE_ID}`);
    return ok({});
  });

export default spaceModule({ manifest, onEvent, routes });
