import unittest

from module import Module
from trellis_sdk import Event, Request
from trellis_sdk.testing import FakeHost


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

    def test_echo_answers_the_body_and_unknown_routes_are_404(self):
        host = FakeHost()
        module = Module()
        echoed = module.handle_request(host.context(), Request("POST", "/echo", body=b'{"a": 1}'))
        self.assertEqual(echoed.json(), {"youSent": {"a": 1}})
        self.assertEqual(module.handle_request(host.context(), Request("GET", "/nope")).status, 404)
        Module.manifest.check()


if __name__ == "__main__":
    unittest.main()
