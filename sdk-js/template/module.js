// {{name}}: a Trellis space module. Its logic sees the host only through `t` (key-value, logging, the
// current item, the configuration), so `npm test` runs it on an in-memory host.
import { Router, badRequest, bodyJson, ok, spaceModule } from './sdk/trellis.js';

// The poll's options when the configuration names none (the schema's default).
const OPTIONS = ['red', 'green', 'blue'];

export const manifest = {
  id: '{{name}}',
  name: '{{name}}',
  version: '0.1.0',
  kind: 'space',
  description: 'Counts the events of a space, keeps notes and a poll',
  configSchema: JSON.stringify({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    properties: {
      greeting: { type: 'string' },
      options: {
        type: 'array',
        items: { type: 'string', minLength: 1 },
        minItems: 2,
        uniqueItems: true,
        default: OPTIONS,
      },
    },
  }),
  permissions: [{ tag: 'key-value' }, { tag: 'item-read' }, { tag: 'logging' }],
};

function onEvent(_ctx, event, t) {
  // increment is atomic: concurrent events never lose a count.
  const n = t.kv.increment(`events/${event.kind}`, 1);
  t.log.debug(`${event.kind} ${event.itemId}: ${n} so far`);
}

const routes = new Router()
  .get('/hello', (req, _params, t) => ok({ message: `${t.config.greeting ?? 'hello'}, ${req.callerHandle}` }))
  .get('/events', (_req, _params, t) =>
    ok({ created: t.kv.getInt('events/form-instance-created'), comments: t.kv.getInt('events/comment-created') }),
  )
  .put('/notes/:key', (req, params, t) => {
    const body = bodyJson(req);
    if (typeof body?.text !== 'string') {
      // A client's mistake answers 400 saying what is wrong (a thrown error would be a 502 module failure).
      const problem = { path: '/text', code: 'REQUIRED', message: 'must be a string' };
      return badRequest('body must be {"text": "..."}', [problem]);
    }
    t.kv.setJson(`note/${params.key}`, body.text);
    return ok({ key: params.key, text: body.text });
  })
  .get('/notes/:key', (_req, params, t) => {
    const text = t.kv.getJson(`note/${params.key}`);
    return text === undefined ? ok(null) : ok({ key: params.key, text });
  })
  .post('/ballot', (req, _params, t) => {
    const options = t.config.options ?? OPTIONS;
    const option = bodyJson(req)?.option;
    if (!options.includes(option)) {
      const problem = { path: '/option', code: 'NOT_AN_OPTION', message: `must be one of: ${options.join(', ')}` };
      return badRequest("option must be one of the poll's options", [problem]);
    }
    // One document (each voter's option) changed with updateJson: votes at once race on it, and the host runs
    // a call that lost the race again, so every vote lands. A re-vote replaces the caller's earlier one.
    t.kv.updateJson('ballot', (ballot) => ({ ...(ballot ?? {}), [req.callerUserId]: option }));
    return ok({ option });
  })
  .get('/ballot/results', (_req, _params, t) => {
    const counts = Object.fromEntries((t.config.options ?? OPTIONS).map((option) => [option, 0]));
    const ballot = t.kv.getJson('ballot') ?? {};
    for (const option of Object.values(ballot)) if (option in counts) counts[option] += 1;
    return ok({ counts, voters: Object.keys(ballot).length });
  });

export default spaceModule({ manifest, onEvent, routes });
