// Poll in JavaScript (`poll-js`): the port of the Rust example (plugins/examples/poll), from
// `trellis module new poll-js --lang js`. One vote per member on the options the space's configuration lists;
// a re-vote moves it. A vote is three writes (the caller's vote by compare-and-swap, then two counters) that
// the host commits together: `POST /vote?stall=1` writes, then spins until its deadline stops it, and the
// totals stay exact.
//
// `POST /ballot` and `GET /ballot/results` keep the same poll as one JSON document (`ballot`, every voter's
// option) changed with `kv.updateJson`: concurrent votes race on that one key, the host runs a call that lost
// the race again (the replays of one space take turns), and every vote lands.
import { Router, badRequest, bodyJson, notFound, ok, spaceModule } from '../../../sdk-js/src/trellis.js';

export const manifest = {
  id: 'poll-js',
  name: 'Poll (JavaScript)',
  version: '0.1.0',
  kind: 'space',
  description: 'One vote per member on the options the space sets; a re-vote moves it',
  configSchema: JSON.stringify({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    required: ['options'],
    additionalProperties: false,
    properties: {
      options: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 2, uniqueItems: true },
    },
  }),
  // componentize-js imports the SDK's whole world, so the module asks for each of its interfaces.
  permissions: [{ tag: 'key-value' }, { tag: 'item-read' }, { tag: 'logging' }],
};

/** Records `option` as `user`'s vote and moves the counters; answers the vote it replaced. */
export function vote(kv, user, option) {
  const key = `vote/${user}`;
  let previous;
  for (;;) {
    previous = kv.getText(key);
    if (previous === option) return previous;
    if (kv.compareAndSwap(key, previous, option)) break;
  }
  if (previous === undefined) kv.increment('voters', 1);
  else kv.increment(`count/${previous}`, -1);
  kv.increment(`count/${option}`, 1);
  return previous;
}

/** The body's `option` when it is one of the poll's, else undefined. */
function chosenOption(req, t) {
  const option = bodyJson(req)?.option;
  return t.config.options.includes(option) ? option : undefined;
}

function notAnOption(t) {
  const allowed = t.config.options.join(', ');
  const problem = { path: '/option', code: 'NOT_AN_OPTION', message: `must be one of: ${allowed}` };
  return badRequest("option must be one of the poll's options", [problem]);
}

const routes = new Router()
  .post('/vote', (req, _params, t) => {
    const option = chosenOption(req, t);
    if (option === undefined) return notAnOption(t);
    const previous = vote(t.kv, req.callerUserId, option);
    if (new URLSearchParams(req.query).has('stall')) {
      for (;;) {
        // the writes above are dropped when the deadline stops this call
      }
    }
    return ok({ option, previous: previous ?? null });
  })
  .post('/ballot', (req, _params, t) => {
    const option = chosenOption(req, t);
    if (option === undefined) return notAnOption(t);
    const user = req.callerUserId;
    const [old] = t.kv.updateJson('ballot', (ballot) => ({ ...(ballot ?? {}), [user]: option }));
    return ok({ option, previous: old?.[user] ?? null });
  })
  .get('/ballot/results', (_req, _params, t) => {
    const ballot = t.kv.getJson('ballot') ?? {};
    const counts = Object.fromEntries(t.config.options.map((o) => [o, 0]));
    for (const option of Object.values(ballot)) if (option in counts) counts[option] += 1;
    return ok({ counts, voters: Object.keys(ballot).length });
  })
  .get('/vote', (req, _params, t) => ok({ option: t.kv.getText(`vote/${req.callerUserId}`) ?? null }))
  .get('/results', (_req, _params, t) => {
    const counts = Object.fromEntries(t.config.options.map((o) => [o, t.kv.getInt(`count/${o}`)]));
    return ok({ counts, voters: t.kv.getInt('voters') });
  });

export default spaceModule({ manifest, routes, onEvent: () => {} });
