import unittest

from module import Module
from trellis_sdk import Event, Request
from trellis_sdk.testing import FakeHost, client_error


class ModuleTest(unittest.TestCase):
    def test_hello_greets_the_caller_with_the_configured_greeting_and_counts_events(self):
        # Arrange
        host = FakeHost()
        module = Module()
        module.on_event(host.context(), Event("form-instance-created", "i1"))

        # Act
        response = module.handle_request(host.context({"greeting": "hi"}), Request("GET", "/hello"))

        # Assert
        self.assertEqual(response.status, 200)
        self.assertEqual(response.json(), {"message": "hi, ann", "events": 1})

    def test_echo_and_notes_answer_a_note_without_text_is_400_and_unknown_routes_are_404(self):
        # Arrange
        host = FakeHost()
        module = Module()
        Module.manifest.check()

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


if __name__ == "__main__":
    unittest.main()
