// `npm test`: the module's logic on an in-memory host (no wasm, no server). Bound to the module, the fake host
// refuses what the real host would: a capability the manifest does not ask for, and a configuration that
// breaks the manifest's configSchema.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import mod from './module.js';
import { ConfigRefused, FakeHost, clientError, request, responseJson } from './sdk/trellis-fake-host.js';

function setup(config = {}) {
  const host = new FakeHost();
  const m = mod.bind(host);
  const ctx = host.context(config); // checked against the manifest's configSchema, as when a space connects it
  const call = (method, path, body, user = 'u1') =>
    m.spaceHooks.handleRequest(ctx, { ...request(method, path, body), callerUserId: user });
  return { host, m, ctx, call };
}

test('counts events by kind', () => {
  // Arrange
  const { m, ctx, call } = setup();

  // Act
  m.spaceHooks.onEvent(ctx, { kind: 'form-instance-created', itemId: 'i1' });
  m.spaceHooks.onEvent(ctx, { kind: 'comment-created', itemId: 'c1' });

  // Assert
  assert.deepEqual(responseJson(call('get', '/events')), { created: 1, comments: 1 });
});

test('greets with the configured greeting; a configuration that breaks the schema is refused', () => {
  const { call } = setup({ greeting: 'hi' });
  assert.deepEqual(responseJson(call('get', '/hello')), { message: 'hi, ann' });
  // Every problem is listed, as the host lists them when a space connects the module with this configuration.
  assert.throws(() => setup({ greeting: 42, colour: 'red' }), (err) => {
    assert.ok(err instanceof ConfigRefused);
    assert.deepEqual(err.problems.map((p) => p.path).sort(), ['', '/greeting']);
    assert.match(err.message, /^the configuration breaks the module's schema: .*\/greeting: must be string/);
    return true;
  });
});

test('stores and reads notes; a note without a text is a 400; unknown routes 404', () => {
  // Arrange
  const { call } = setup();

  // Act
  const stored = call('put', '/notes/a', { text: 'x' });
  const refused = call('put', '/notes/b', { nope: 1 });

  // Assert
  assert.equal(stored.status, 200);
  assert.deepEqual(responseJson(call('get', '/notes/a')), { key: 'a', text: 'x' });
  // clientError is what the HTTP client receives, by the host's rules.
  assert.equal(refused.status, 400);
  assert.deepEqual(clientError(refused), {
    code: 'VALIDATION_FAILED',
    message: 'body must be {"text": "..."}',
    details: [{ path: '/text', code: 'REQUIRED', message: 'must be a string' }],
  });
  assert.equal(call('get', '/nothing').status, 404);
});

test('a re-vote replaces the caller\u2019s vote; an option the poll lacks is a 400', () => {
  // Arrange: the schema's default options.
  const { call } = setup();
  const vote = (user, option) => call('post', '/ballot', { option }, user).status;

  // Act
  const statuses = [vote('ann', 'red'), vote('bob', 'red'), vote('ann', 'green'), vote('bob', 'purple')];

  // Assert
  assert.deepEqual(statuses, [200, 200, 200, 400]);
  assert.deepEqual(responseJson(call('get', '/ballot/results')), { counts: { red: 1, green: 1, blue: 0 }, voters: 2 });
});
