// The SDK on the in-memory host: `cd sdk-js && node --test test/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HttpError, Kv, Router, ModuleError, badRequest, bodyJson, config, error, json, notFound, ok, spaceModule,
} from '../src/trellis.js';
import { FakeHost, clientError, request, responseJson } from '../src/trellis-fake-host.js';

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

const ctx = { spaceId: 's', config: '' };

function boundRoutes(routes) {
  return spaceModule({ manifest: {}, routes }).bind(new FakeHost());
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
