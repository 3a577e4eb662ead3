"""The module's logic against the SDK's in-memory host (`python -m unittest`, no wasm)."""

import json
import unittest

from poll import Poll
from trellis_sdk import Request
from trellis_sdk.testing import ConfigRefused, FakeHost

CONFIG = json.dumps({"options": ["yes", "no"]})


class PollTest(unittest.TestCase):
    def setUp(self):
        self.host = FakeHost(Poll.manifest)  # refuses what the host refuses: permissions, configuration
        self.module = Poll()

    def call(self, method, path, body=None, user="ann"):
        request = Request(method, path, body=b"" if body is None else json.dumps(body).encode(), caller_user_id=user)
        return self.module.handle_request(self.host.context(CONFIG), request)

    def test_a_re_vote_moves_the_callers_vote_and_the_counts_follow(self):
        self.call("POST", "/vote", {"option": "yes"}, "ann")
        self.call("POST", "/vote", {"option": "yes"}, "bob")
        self.call("POST", "/vote", {"option": "no"}, "ann")
        self.assertEqual(self.call("GET", "/results").json(), {"counts": {"yes": 1, "no": 1}, "voters": 2})
        self.assertEqual(self.call("GET", "/vote", user="ann").json(), {"option": "no"})

    def test_ballots_on_the_shared_document_count_each_voter_once(self):
        self.call("POST", "/ballot", {"option": "yes"}, "ann")
        self.call("POST", "/ballot", {"option": "yes"}, "bob")
        self.assertEqual(self.call("POST", "/ballot", {"option": "no"}, "ann").json(), {"option": "no", "previous": "yes"})
        self.assertEqual(self.call("GET", "/ballot/results").json(), {"counts": {"yes": 1, "no": 1}, "voters": 2})

    def test_an_option_the_poll_lacks_is_a_400_naming_the_options(self):
        answer = self.call("POST", "/vote", {"option": "maybe"})
        self.assertEqual(answer.status, 400)
        problem = {"path": "/option", "code": "NOT_AN_OPTION", "message": "must be one of: yes, no"}
        self.assertEqual(answer.json()["error"]["details"], [problem])
        with self.assertRaises(ConfigRefused):
            self.host.context({"options": ["only"]})


if __name__ == "__main__":
    unittest.main()
