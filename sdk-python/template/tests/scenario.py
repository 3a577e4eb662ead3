"""The poll scenario against the real host: every member votes once, then 100 re-votes at once (five per
member), then the totals must be exact. `trellis module dev --users 20 --run '.venv/bin/python
tests/scenario.py'` serves the module and runs this with BASE, KEY, SPACE, MODULE and TOKEN ... TOKEN_20 set.
Standard library only; not a unit test (`python -m unittest` runs tests/test_*.py).
"""

import json
import os
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from email.message import Message

OPTIONS = ["red", "green", "blue"]  # the configuration's default options
MEMBERS = 20
RE_VOTES = 100


def main() -> None:
    if "BASE" not in os.environ:
        sys.exit("BASE is unset: run it with trellis module dev --users 20 --run '.venv/bin/python tests/scenario.py'")
    env = os.environ
    url = f"{env['BASE']}/v0/spaces/{env['SPACE']}/modules/{env['MODULE']}/ballot"
    tokens = [env["TOKEN"]] + [env[f"TOKEN_{n}"] for n in range(2, MEMBERS + 1)]
    retried = []  # the 429s retried (list.append is atomic)

    def call(member: int, path: str = "", body: object = None) -> tuple[int, Message, bytes]:
        headers = {"X-License-Key": env["KEY"], "Authorization": f"Bearer {tokens[member]}"}
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            headers["Content-Type"] = "application/json"
        request = urllib.request.Request(url + path, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=120) as answer:
                return answer.status, answer.headers, answer.read()
        except urllib.error.HTTPError as answer:  # a 4xx or 5xx is an answer too
            return answer.code, answer.headers, answer.read()

    def vote(member: int, option: str) -> int:
        """`POST /ballot` as `member`; a 429 is retried after its Retry-After, as a client does. Answers the
        final status."""
        for _ in range(60):
            status, headers, _ = call(member, body={"option": option})
            if status != 429:
                return status
            retried.append(member)
            time.sleep(float(headers.get("Retry-After") or 1))  # the headers' names match in any case
        return 429

    # Every member votes for the first option.
    for member in range(MEMBERS):
        assert vote(member, OPTIONS[0]) == 200, f"member {member}'s first vote"

    # 100 re-votes at once, five per member: an even member moves to the second option, an odd one to the third.
    with ThreadPoolExecutor(max_workers=RE_VOTES) as pool:
        members = [i % MEMBERS for i in range(RE_VOTES)]
        statuses = list(pool.map(lambda member: vote(member, OPTIONS[1 + member % 2]), members))
    assert statuses == [200] * RE_VOTES, f"every re-vote answers 200 in the end: {statuses}"

    status, _, body = call(0, "/results")
    results = json.loads(body)
    half = MEMBERS // 2
    expected = {"counts": {OPTIONS[0]: 0, OPTIONS[1]: half, OPTIONS[2]: half}, "voters": MEMBERS}
    assert (status, results) == (200, expected), f"the totals: {status} {results}"
    print(f"scenario passed: {json.dumps(results)} ({len(retried)} 429s retried)")


if __name__ == "__main__":
    main()
