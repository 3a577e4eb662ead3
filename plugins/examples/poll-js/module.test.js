// The module's logic on the in-memory host: `node --test plugins/examples/poll-js/`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import poll from './module.js';
import { ConfigRefused, FakeHost, request, responseJson } from '../../../sdk-js/src/trellis-fake-host.js';

function setup() {
  const host = new FakeHost();
  const m = poll.bind(host);
  const ctx = host.context({ options: ['yes', 'no'] }); // checked against configSchema, as the host does
  const call = (method, path, body, user = 'ann') =>
    m.spaceHooks.handleRequest(ctx, { ...request(method, path, body), callerUserId: user });
  return { host, call };
}

test('a re-vote moves the caller\u2019s vote and the counts follow', () => {
  const { call } = setup();
  call('post', '/vote', { option: 'yes' }, 'ann');
  call('post', '/vote', { option: 'yes' }, 'bob');
  call('post', '/vote', { option: 'no' }, 'ann');
  assert.deepEqual(responseJson(call('get', '/results')), { counts: { yes: 1, no: 1 }, voters: 2 });
  assert.deepEqual(responseJson(call('get', '/vote', undefined, 'ann')), { option: 'no' });
});

test('ballots on the shared document count each voter once', () => {
  const { call } = setup();
  call('post', '/ballot', { option: 'yes' }, 'ann');
  call('post', '/ballot', { option: 'yes' }, 'bob');
  assert.deepEqual(responseJson(call('post', '/ballot', { option: 'no' }, 'ann')), { option: 'no', previous: 'yes' });
  assert.deepEqual(responseJson(call('get', '/ballot/results')), { counts: { yes: 1, no: 1 }, voters: 2 });
});

test('an option the poll lacks is a 400 naming the options', () => {
  const { call, host } = setup();
  const answer = call('post', '/vote', { option: 'maybe' });
  assert.equal(answer.status, 400);
  assert.deepEqual(responseJson(answer).error.details, [
    { path: '/option', code: 'NOT_AN_OPTION', message: 'must be one of: yes, no' },
  ]);
  assert.equal(host.store.size, 0);
  assert.throws(() => host.context({ options: ['only'] }), ConfigRefused);
});
