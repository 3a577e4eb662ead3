import json
import unittest

from module import Module
from trellis_sdk import Event, Request
from trellis_sdk.testing import ConfigRefused, FakeHost, client_error

# Given the manifest, the fake host refuses what the real host would: a permission the manifest misses for an
# interface the component imports (here, at once), and a configuration that breaks config_schema (context()).


class ModuleTest(unittest.TestCase):
    def test_hello_greets_with_the_configured_greeting_counts_events_and_a_bad_configuration_is_refused(self):
        # Arrange
        host = FakeHost(Module.manifest)
        module = Module()
        module.on_event(host.context(), Event("form-instance-created", "i1"))

        # Act
        response = module.handle_request(host.context({"greeting": "hi"}), Request("GET", "/hello"))
        with self.assertRaises(ConfigRefused) as refused:  # as when a space connects it with this configuration
            host.context({"greeting": 42, "colour": "red"})

        # Assert
        self.assertEqual(response.status, 200)
        self.assertEqual(response.json(), {"message": "hi, ann", "events": 1})
        # Every problem is listed, with its JSON Pointer ("" for the whole configuration).
        self.assertEqual(sorted(p["path"] for p in refused.exception.problems), ["", "/greeting"])
        self.assertIn("/greeting: 42 is not of type 'string'", str(refused.exception))

    def test_echo_and_notes_answer_a_note_without_text_is_400_and_unknown_routes_are_404(self):
        # Arrange
        host = FakeHost(Module.manifest)
        module = Module()

        # Act
        echoed = module.handle_request(host.context(), Request("POST", "/echo", body=b'{"a": 1}'))
        stored = module.handle_request(host.context(), Request("PUT", "/notes/a", body=b'{"text": "buy milk"}'))
        refused = module.handle_request(host.context(), Request("PUT", "/notes/b", body=b'{"nope": 1}'))
        unknown = module.handle_request(host.context(), Request("GET", "/nope"))

        # Assert
        self.assertEqual(echoed.json(), {"youSent": {"a": 1}})
        self.assertEqual(stored.json(), {"key": "a", "text": "buy milk"})
        # client_error is what the HTTP client receives, by the host's rules.
        self.assertEqual(refused.status, 400)
        self.assertEqual(
            client_error(refused),
            {
                "code": "VALIDATION_FAILED",
                "message": 'body must be {"text": "..."}',
                "details": [{"path": "/text", "code": "REQUIRED", "message": "must be a string"}],
            },
        )
        self.assertEqual(unknown.status, 404)

    def test_a_re_vote_replaces_the_callers_vote_and_an_option_the_poll_lacks_is_400(self):
        # Arrange: the schema's default options.
        host = FakeHost(Module.manifest)
        module = Module()

        def vote(user, option):
            body = json.dumps({"option": option}).encode()
            return module.handle_request(host.context(), Request("POST", "/ballot", body=body, caller_user_id=user))

        # Act
        statuses = [vote("ann", "red").status, vote("bob", "red").status, vote("ann", "green").status]
        refused = vote("bob", "purple")
        results = module.handle_request(host.context(), Request("GET", "/ballot/results"))

        # Assert
        self.assertEqual(statuses, [200, 200, 200])
        self.assertEqual(client_error(refused)["details"][0]["code"], "NOT_AN_OPTION")
        self.assertEqual(results.json(), {"counts": {"red": 1, "green": 1, "blue": 0}, "voters": 2})


if __name__ == "__main__":
    unittest.main()
