// The poll scenario against the real host: every member votes once, then 100 re-votes at once (five per member),
// then the totals must be exact. `npm run scenario` (trellis module dev --users 20 --run 'node scenario.js')
// serves the module and runs this with BASE, KEY, SPACE, MODULE and TOKEN ... TOKEN_20 set.
import assert from 'node:assert/strict';

const { BASE, KEY, SPACE, MODULE } = process.env;
if (!BASE) {
  console.error('BASE is unset: run it with npm run scenario');
  process.exit(2);
}
const OPTIONS = ['red', 'green', 'blue']; // the configuration's default options
const MEMBERS = 20;
const RE_VOTES = 100;
const tokens = [process.env.TOKEN];
for (let n = 2; n <= MEMBERS; n++) tokens.push(process.env[`TOKEN_${n}`]);
assert.ok(tokens.every(Boolean), 'TOKEN ... TOKEN_20 are unset: run it with --users 20');
const url = `${BASE}/v0/spaces/${SPACE}/modules/${MODULE}/ballot`;
let retried = 0; // the 429s retried
const auth = (member) => ({ 'X-License-Key': KEY, Authorization: `Bearer ${tokens[member]}` });

/** `POST /ballot` as `member`; a 429 is retried after its Retry-After, as a client does. Answers the final status. */
async function vote(member, option) {
  for (let attempt = 0; attempt < 60; attempt++) {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { ...auth(member), 'Content-Type': 'application/json' },
      body: JSON.stringify({ option }),
    });
    await answer.arrayBuffer(); // read to the end, so the connection is reused
    if (answer.status !== 429) return answer.status;
    retried += 1;
    const wait = Number(answer.headers.get('retry-after')) || 1;
    await new Promise((resolve) => setTimeout(resolve, wait * 1000));
  }
  return 429;
}

// Every member votes for the first option.
for (let member = 0; member < MEMBERS; member++) assert.equal(await vote(member, OPTIONS[0]), 200);

// 100 re-votes at once, five per member: an even member moves to the second option, an odd one to the third.
const reVotes = [];
for (let i = 0; i < RE_VOTES; i++) reVotes.push(vote(i % MEMBERS, OPTIONS[1 + ((i % MEMBERS) % 2)]));
assert.deepEqual(await Promise.all(reVotes), Array(RE_VOTES).fill(200), 'every re-vote answers 200 in the end');

const results = await (await fetch(`${url}/results`, { headers: auth(0) })).json();
const half = MEMBERS / 2;
assert.deepEqual(results, { counts: { [OPTIONS[0]]: 0, [OPTIONS[1]]: half, [OPTIONS[2]]: half }, voters: MEMBERS });
console.log(`scenario passed: ${JSON.stringify(results)} (${retried} 429s retried)`);
