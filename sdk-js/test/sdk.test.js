// The SDK on the in-memory host: `cd sdk-js && node --test test/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HttpError, Kv, Router, ModuleError, badRequest, bodyJson, config, error, json, notFound, ok, spaceModule,
} from '../src/trellis.js';
import {
  ConfigRefused, FakeHost, PermissionRefused, checkConfig, clientError, request, responseJson,
} from '../src/trellis-fake-host.js';

test('increment keeps decimal text and refuses non-integers and overflow', () => {
  const host = new FakeHost();
  const kv = new Kv(host);
  assert.equal(kv.increment('n', 5), 5);
  assert.equal(kv.increment('n', -7), -2);
  assert.equal(host.text('n'), '-2');
  kv.set('s', 'abc');
  assert.throws(() => kv.increment('s'), ModuleError);
  kv.set('big', '9223372036854775807');
  assert.throws(() => kv.increment('big', 1), /overflows/);
  assert.equal(host.text('big'), '9223372036854775807');
});

test('a failed call leaves the store as it was, as the real host drops its writes', async () => {
  const host = new FakeHost();
  const kv = new Kv(host);
  kv.set('kept', 'before');
  assert.throws(() => host.call(() => {
    kv.set('kept', 'changed');
    kv.set('new', 'x');
    throw new ModuleError('failed');
  }), /failed/);
  assert.deepEqual([host.text('kept'), host.text('new')], ['before', undefined]);
  await assert.rejects(host.call(async () => {
    kv.delete('kept');
    throw new ModuleError('later');
  }), /later/);
  assert.equal(host.text('kept'), 'before');
  assert.equal(host.call(() => { kv.set('new', 'y'); return 7; }), 7);
  assert.equal(host.text('new'), 'y');
});

test('a module bound to the fake host runs each hook as one call: a failed one keeps none of its writes', () => {
  // Arrange
  const host = new FakeHost();
  const m = spaceModule({
    manifest: { id: 'half', permissions: [{ tag: 'key-value' }, { tag: 'item-read' }, { tag: 'logging' }] },
    onEvent(_ctx, _event, t) {
      t.kv.set('heard', '1');
      throw new ModuleError('then it fails');
    },
    routes: new Router().post('/ask', (_req, _params, t) => {
      t.kv.set('asked', '1');
      throw new TypeError('then it breaks');
    }),
  }).bind(host);
  const ctx = host.context();

  // Act
  const event = () => m.spaceHooks.onEvent(ctx, { kind: 'comment-created', itemId: 'c1' });
  const route = () => m.spaceHooks.handleRequest(ctx, request('post', '/ask'));

  // Assert
  assert.throws(event, (err) => err === 'then it fails');
  assert.throws(route, (err) => typeof err === 'string' && err.includes('TypeError'));
  assert.deepEqual([host.text('heard'), host.text('asked')], [undefined, undefined]);
});

test('compare-and-swap succeeds only on the expected value', () => {
  const kv = new Kv(new FakeHost());
  assert.equal(kv.compareAndSwap('k', undefined, 'a'), true);
  assert.equal(kv.compareAndSwap('k', undefined, 'b'), false);
  assert.equal(kv.compareAndSwap('k', 'a', 'b'), true);
  assert.equal(kv.getText('k'), 'b');
  assert.equal(kv.compareAndSwap('k', 'b', undefined), true);
  assert.equal(kv.get('k'), undefined);
});

test('updateJson retries when another writer got in first', () => {
  const host = new FakeHost();
  const kv = new Kv(host);
  kv.setJson('doc', { n: 1 });
  let raced = false;
  const [previous, next] = kv.updateJson('doc', (doc) => {
    if (!raced) {
      raced = true;
      kv.setJson('doc', { n: 10 });
    }
    return { n: doc.n + 1 };
  });
  assert.deepEqual(previous, { n: 10 });
  assert.deepEqual(next, { n: 11 });
  assert.deepEqual(kv.getJson('doc'), { n: 11 });
});

test('routes match method and segments, with parameters', () => {
  const router = new Router().get('/items/:id', (_req, params) => ok(params)).post('/items', () => ok('made'));
  assert.deepEqual(responseJson(router.handle(request('get', '/items/a%20b'))), { id: 'a b' });
  assert.equal(router.handle(request('get', '/items')).status, 404);
  assert.deepEqual(router.handle(request('delete', '/items/1')), notFound());
});

test('config parses ctx.config over defaults; bad JSON is an error', () => {
  assert.deepEqual(config({ config: '' }, { a: 1 }), { a: 1 });
  assert.deepEqual(config({ config: '{"b":2}' }, { a: 1 }), { a: 1, b: 2 });
  assert.throws(() => config({ config: '{' }), ModuleError);
});

const ctx = { spaceId: 's', config: '' };

const EVERY_PERMISSION = [{ tag: 'key-value' }, { tag: 'logging' }, { tag: 'item-read' }];

function boundRoutes(routes) {
  return spaceModule({ manifest: { id: 'probe', permissions: EVERY_PERMISSION, configSchema: '{}' }, routes }).bind(
    new FakeHost(),
  );
}

test('a ModuleError becomes the WIT err string, its message alone', () => {
  const m = boundRoutes(new Router().get('/fail', () => {
    throw new ModuleError('asked to fail');
  }));
  assert.throws(() => m.spaceHooks.handleRequest(ctx, request('get', '/fail')), (e) => e === 'asked to fail');
  assert.equal(m.spaceHooks.handleRequest(ctx, request('get', '/none')).status, 404);
});

test('an unexpected exception logs its stack and becomes an err naming its type, file and line', (t) => {
  // Arrange
  const stderr = t.mock.method(console, 'error', () => {});
  const m = boundRoutes(new Router().get('/boom', () => {
    const missing = undefined;
    return missing.field;
  }));

  // Act
  let thrown;
  try {
    m.spaceHooks.handleRequest(ctx, request('get', '/boom'));
  } catch (err) {
    thrown = err;
  }

  // Assert: the place is this file's (the first frame outside the SDK), with line and column.
  assert.match(thrown, /^TypeError: .+ \(at \S*sdk\.test\.js:\d+:\d+\)$/);
  assert.equal(stderr.mock.callCount(), 1);
  const [text] = stderr.mock.calls[0].arguments;
  assert.equal(text.split('\n')[0], thrown);
  assert.match(text.split('\n')[1], /^ {4}at .*sdk\.test\.js:\d+:\d+/);
});

test('error() writes the contract envelope; details only when there are some', () => {
  const details = [{ path: '/choice', code: 'NOT_AN_OPTION', message: 'not one of a, b' }];
  assert.deepEqual(responseJson(badRequest('choice is not an option', details)), {
    error: { code: 'VALIDATION_FAILED', message: 'choice is not an option', details },
  });
  assert.equal(badRequest('x').status, 400);
  assert.deepEqual(responseJson(error(409, 'CONFLICT', 'already voted')), {
    error: { code: 'CONFLICT', message: 'already voted' },
  });
  assert.throws(() => error(200, 'CONFLICT', 'no'), TypeError);
});

test('an HttpError thrown by a route is its answer, which the client sees as the envelope', () => {
  // Arrange
  const details = [{ path: '/choice', code: 'REQUIRED', message: 'is required' }];
  const m = boundRoutes(
    new Router()
      .post('/vote', (req) => {
        const body = bodyJson(req);
        if (typeof body?.choice !== 'string') throw HttpError.badRequest('choice must be a string', details);
        return ok({ choice: body.choice });
      })
      .post('/again', () => {
        throw new HttpError(409, 'CONFLICT', 'already voted');
      }),
  );
  const call = (path, body) => m.spaceHooks.handleRequest(ctx, request('post', path, body));

  // Act
  const missing = call('/vote', {});
  const notJson = m.spaceHooks.handleRequest(ctx, { ...request('post', '/vote'), body: new TextEncoder().encode('{') });
  const again = call('/again');

  // Assert
  assert.equal(missing.status, 400);
  assert.deepEqual(clientError(missing), { code: 'VALIDATION_FAILED', message: 'choice must be a string', details });
  assert.equal(notJson.status, 400);
  assert.equal(clientError(notJson).message, 'request body is not JSON');
  assert.deepEqual(clientError(again), { code: 'CONFLICT', message: 'already voted' });
  assert.deepEqual(responseJson(call('/vote', { choice: 'a' })), { choice: 'a' });
});

test('clientError applies the host\u2019s rules to bodies of other shapes', () => {
  assert.deepEqual(clientError(json(400, { error: 'choice must be a string' })), {
    code: 'VALIDATION_FAILED',
    message: 'choice must be a string',
  });
  assert.deepEqual(clientError(json(409, { message: 'taken' })), { code: 'CONFLICT', message: 'taken' });
  assert.deepEqual(clientError(json(400, { choice: 1 })), { code: 'VALIDATION_FAILED', message: 'bad request' });
  assert.deepEqual(clientError(notFound()), { code: 'NOT_FOUND', message: 'not found' });
  // A code the contract gives another status yields to the status's own.
  assert.equal(clientError(error(409, 'NOT_FOUND', 'x')).code, 'CONFLICT');
  assert.equal(clientError(ok({})), undefined);
});

const SCHEMA = JSON.stringify({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  additionalProperties: false,
  required: ['max'],
  properties: { max: { type: 'integer', minimum: 1 }, title: { type: 'string' }, mode: { enum: ['a', 'b'] } },
});

function manifestWith(permissions, configSchema = SCHEMA) {
  return { id: 'probe', name: 'Probe', version: '0.1.0', kind: 'space', description: '', configSchema, permissions };
}

test('the fake host refuses a configuration that breaks the manifest\u2019s schema, listing every problem', () => {
  // Arrange
  const host = new FakeHost();
  spaceModule({ manifest: manifestWith(EVERY_PERMISSION) }).bind(host);

  // Act
  let refused;
  try {
    host.context({ max: 0, title: 7, mode: 'c', colour: 'red' });
  } catch (err) {
    refused = err;
  }

  // Assert: each problem with its JSON Pointer, and in the message as the Rust SDK's check_config words it.
  assert.ok(refused instanceof ConfigRefused && refused instanceof ModuleError);
  assert.deepEqual(refused.problems, [
    { path: '', message: "must NOT have additional properties ('colour' was unexpected)" },
    { path: '/max', message: 'must be >= 1' },
    { path: '/title', message: 'must be string' },
    { path: '/mode', message: 'must be equal to one of the allowed values: ["a","b"]' },
  ]);
  assert.match(refused.message, /^the configuration breaks the module's schema: : must NOT .*; \/max: must be >= 1; /);
  assert.throws(() => host.context(''), (err) => err instanceof ConfigRefused && /property 'max'/.test(err.message));
  assert.throws(() => host.context('{'), (err) => err instanceof ModuleError && /not JSON/.test(err.message));
});

test('a configuration that fits the schema is the ctx the hooks get', () => {
  const host = new FakeHost();
  const m = spaceModule({
    manifest: manifestWith(EVERY_PERMISSION),
    routes: new Router().get('/config', (_req, _params, t) => ok(t.config)),
  }).bind(host);
  const ctx = host.context({ max: 3, mode: 'b' }, 'space-9');
  assert.deepEqual(ctx, { spaceId: 'space-9', config: '{"max":3,"mode":"b"}' });
  assert.deepEqual(responseJson(m.spaceHooks.handleRequest(ctx, request('get', '/config'))), { max: 3, mode: 'b' });
  assert.deepEqual(host.context('{"max": 1}').config, '{"max":1}');
  // Without a manifest, as before: no schema to check.
  assert.deepEqual(new FakeHost().context({ anything: true }).config, '{"anything":true}');
});

test('checkConfig follows the schema\u2019s draft: format is asserted in draft 7, an annotation in 2020-12', () => {
  const email = (draft) =>
    manifestWith([], JSON.stringify({ $schema: draft, properties: { to: { format: 'email' } } }));
  assert.deepEqual(checkConfig(email('http://json-schema.org/draft-07/schema#'), { to: 'nobody' }), [
    { path: '/to', message: 'must match format "email"' },
  ]);
  assert.deepEqual(checkConfig(email('https://json-schema.org/draft/2020-12/schema'), { to: 'nobody' }), []);
  assert.throws(() => checkConfig(manifestWith([], '{"type": 12}'), {}), /configSchema is not a valid JSON Schema/);
  assert.throws(() => checkConfig(manifestWith([], '{'), {}), /configSchema is not JSON/);
});

test('binding refuses a module whose manifest misses a permission its component imports, with the fix', () => {
  // Arrange: the world (wit/world.wit) imports key-value, logging and item-read; the manifest asks for one.
  const mod = spaceModule({ manifest: manifestWith([{ tag: 'logging' }]) });

  // Act, Assert: refused as the host refuses it at load, used or not, with the line to add for each.
  assert.throws(() => mod.bind(new FakeHost()), (err) => {
    assert.ok(err instanceof PermissionRefused);
    assert.deepEqual(err.permissions, ['key-value', 'item-read']);
    assert.equal(
      err.message,
      'the host refuses to load module "probe": it imports trellis:module/key-value@0.2.0 without asking for the ' +
        "\"key-value\" permission: add it to the manifest (`permissions: [{ tag: 'key-value' }, ...]`); it imports " +
        'trellis:module/item-read@0.2.0 without asking for the "item-read" permission: add it to the manifest ' +
        "(`permissions: [{ tag: 'item-read' }, ...]`)",
    );
    return true;
  });
  assert.ok(spaceModule({ manifest: manifestWith(EVERY_PERMISSION) }).bind(new FakeHost()));
});

test('a capability used without its permission throws naming it and the fix; asked for, it works', () => {
  // Arrange: a component that imports nothing (`imports: []`), so only the use of a capability is refused.
  const spec = (permissions) => ({
    manifest: manifestWith(permissions),
    onEvent: (_ctx, event, t) => {
      t.kv.increment('events', 1);
      t.log.info(event.kind);
      t.kv.setJson('last', t.item());
    },
    routes: new Router().get('/count', (_req, _params, t) => ok({ events: t.kv.getInt('events') })),
  });
  const event = { kind: 'comment-created', itemId: 'c1' };
  const bare = new FakeHost({ imports: [] });
  const m = spaceModule(spec([])).bind(bare);
  const ctx = bare.context({ max: 1 });

  // Act, Assert: the error itself reaches the test (not a module failure), with the host's reason and the fix.
  assert.throws(() => m.spaceHooks.onEvent(ctx, event), (err) => {
    assert.ok(err instanceof PermissionRefused);
    assert.deepEqual(err.permissions, ['key-value']);
    assert.match(err.message, /without asking for the "key-value" permission: .*`permissions: \[\{ tag: 'key-value' /);
    return true;
  });
  assert.throws(() => m.spaceHooks.handleRequest(ctx, request('get', '/count')), PermissionRefused);
  assert.throws(() => new Kv(bare).set('k', 'v'), PermissionRefused);
  const counting = spaceModule(spec([{ tag: 'key-value' }])).bind(new FakeHost({ imports: [] }));
  assert.throws(() => counting.spaceHooks.onEvent(ctx, event), /"logging" permission.*tag: 'logging'/);
  const logging = spaceModule(spec([{ tag: 'key-value' }, { tag: 'logging' }])).bind(new FakeHost({ imports: [] }));
  assert.throws(() => logging.spaceHooks.onEvent(ctx, event), /"item-read" permission.*tag: 'item-read'/);

  // With every permission it uses, the same module runs.
  const host = new FakeHost();
  const granted = spaceModule(spec(EVERY_PERMISSION)).bind(host);
  host.setItem({ id: 'c1' });
  granted.spaceHooks.onEvent(ctx, event);
  assert.deepEqual(responseJson(granted.spaceHooks.handleRequest(ctx, request('get', '/count'))), { events: 1 });
  assert.deepEqual(host.logs, [{ level: 'info', message: 'comment-created' }]);
  assert.equal(host.text('last'), '{"id":"c1"}');
});
