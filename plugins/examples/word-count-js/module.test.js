// The module's logic on the in-memory host: `node --test plugins/examples/word-count-js/module.test.js`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import wordCount, { countWords } from './module.js';
import { ConfigRefused, FakeHost, clientError, request, responseJson } from '../../../sdk-js/src/trellis-fake-host.js';

function instance(fields) {
  return { formId: 'f1', configurationId: 'c1', state: 'SUBMITTED', payload: { fields } };
}

function setup(config = '') {
  const host = new FakeHost();
  const m = wordCount.bind(host); // the host refuses capabilities the manifest does not ask for
  const ctx = host.context(config); // and a configuration that breaks its configSchema
  const event = (kind, itemId, item) => {
    host.setItem(item);
    m.spaceHooks.onEvent(ctx, { kind, itemId });
  };
  const call = (method, path, body) => m.spaceHooks.handleRequest(ctx, request(method, path, body));
  const stats = () => responseJson(call('get', '/stats'));
  return { host, m, event, call, stats };
}

test('counts words of text answers across items', () => {
  // Arrange
  const { event, stats, host } = setup();

  // Act
  event('form-instance-created', 'i1', instance({ a: 'The quick  brown fox', b: 42, c: ['jumps over', '—'] }));
  event('form-instance-created', 'i2', instance({ a: 'lazy dog' }));

  // Assert
  assert.deepEqual(stats(), { items: 2, words: 8, comments: 0 });
  assert.deepEqual(host.logs[0], { level: 'debug', message: 'i1 has 6 words' });
});

test('an update replaces the item\u2019s earlier count', () => {
  const { event, stats } = setup('{}');
  event('form-instance-created', 'i1', instance({ a: 'one two three' }));
  event('form-instance-updated', 'i1', instance({ a: 'one' }));
  assert.deepEqual(stats(), { items: 1, words: 1, comments: 0 });
});

test('ignored fields and asset events count nothing; comments are counted', () => {
  const { event, stats } = setup(JSON.stringify({ ignoreFields: ['secret'] }));
  event('form-instance-created', 'i1', instance({ secret: 'do not count me', a: 'count' }));
  event('asset-state-changed', 'asset-1', { assetId: 'asset-1' });
  event('comment-created', 'c1', { commentId: 'c1' });
  assert.deepEqual(stats(), { items: 1, words: 1, comments: 1 });
});

test('stats start at zero, config echoes, other routes are 404', () => {
  const { call, stats } = setup(JSON.stringify({ ignoreFields: ['x'] }));
  assert.deepEqual(stats(), { items: 0, words: 0, comments: 0 });
  assert.deepEqual(responseJson(call('get', '/config')), { ignoreFields: ['x'] });
  const missing = call('get', '/other');
  assert.equal(missing.status, 404);
  assert.deepEqual(responseJson(missing), { error: 'not found' });
  assert.equal(call('post', '/stats').status, 404);
});

test('config is {} when none; one that breaks the schema is refused with every problem', () => {
  assert.deepEqual(responseJson(setup('').call('get', '/config')), {});
  assert.throws(() => setup({ ignoreFields: ['a', 2], ignore: [] }), (err) => {
    assert.ok(err instanceof ConfigRefused);
    assert.deepEqual(err.problems, [
      { path: '', message: "must NOT have additional properties ('ignore' was unexpected)" },
      { path: '/ignoreFields/1', message: 'must be string' },
    ]);
    return true;
  });
});

test('/fail is the WIT err "asked to fail"', () => {
  const { call } = setup();
  assert.throws(() => call('post', '/fail'), (err) => err === 'asked to fail');
});

test('/count counts a text and answers 400 with what is wrong without one', () => {
  // Arrange
  const { call } = setup();

  // Act
  const counted = call('post', '/count', { text: 'one two three' });
  const refused = call('post', '/count', { words: 3 });

  // Assert
  assert.deepEqual(responseJson(counted), { words: 3 });
  assert.equal(refused.status, 400);
  assert.deepEqual(clientError(refused), {
    code: 'VALIDATION_FAILED',
    message: 'text must be a string',
    details: [{ path: '/text', code: 'REQUIRED', message: 'must be a string' }],
  });
});

test('/crash is a TypeError whose err names this module\u2019s file and line', (t) => {
  t.mock.method(console, 'error', () => {});
  const { call } = setup();
  assert.throws(() => call('post', '/crash'), (err) => /^TypeError: .* \(at \S*module\.js:\d+:\d+\)$/.test(err));
});

test('word rules: tokens need a letter or digit', () => {
  assert.equal(countWords('  a -- b2 ... \u00e9t\u00e9 '), 3);
  assert.equal(countWords(['one two', 3, 'three']), 3);
  assert.equal(countWords({ x: 'y' }), 0);
  assert.equal(countWords(7), 0);
});

test('manifest matches the spec', () => {
  const { m } = setup();
  const manifest = m.moduleInfo.manifest();
  assert.equal(manifest.id, 'word-count-js');
  assert.equal(manifest.kind, 'space');
  assert.deepEqual(JSON.parse(manifest.configSchema).properties, {
    ignoreFields: { type: 'array', items: { type: 'string' } },
  });
});
