// The SDK on the in-memory host: `cd sdk-js && node --test test/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Kv, Router, ModuleError, config, notFound, ok, spaceModule } from '../src/trellis.js';
import { FakeHost, request, responseJson } from '../src/trellis-fake-host.js';

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

test('an exception in a handler becomes the WIT err string', () => {
  const m = spaceModule({
    manifest: {},
    routes: new Router().get('/boom', () => {
      throw new Error('boom');
    }),
  }).bind(new FakeHost());
  const ctx = { spaceId: 's', config: '' };
  assert.throws(() => m.spaceHooks.handleRequest(ctx, request('get', '/boom')), (e) => e === 'boom');
  assert.equal(m.spaceHooks.handleRequest(ctx, request('get', '/none')).status, 404);
});
