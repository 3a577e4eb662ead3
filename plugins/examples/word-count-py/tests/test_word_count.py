"""The module's logic against the SDK's in-memory host (`python -m unittest`, no wasm)."""

import unittest

from trellis_sdk import Event, ModuleError, Request
from trellis_sdk.testing import ConfigRefused, FakeHost, client_error
from word_count import WordCount, count_words


def instance(fields):
    return {"formId": "f1", "configurationId": "c1", "state": "SUBMITTED", "payload": {"fields": fields}}


class WordCountTest(unittest.TestCase):
    def setUp(self):
        # Given the manifest, the host refuses missing permissions and configurations that break the schema.
        self.host = FakeHost(WordCount.manifest)
        self.module = WordCount()

    def event(self, kind, item_id, fields=None, config=""):
        self.host.set_item(None if fields is None else instance(fields))
        self.module.on_event(self.host.context(config), Event(kind, item_id))

    def call(self, method, path, config=""):
        return self.module.handle_request(self.host.context(config), Request(method, path))

    def stats(self):
        return self.call("GET", "/stats").json()

    def test_counts_words_of_text_answers_across_items(self):
        # Arrange, Act
        self.event("form-instance-created", "i1", {"a": "The quick  brown fox", "b": 42, "c": ["jumps over", "—"]})
        self.event("form-instance-created", "i2", {"a": "lazy dog"})

        # Assert
        self.assertEqual(self.stats(), {"items": 2, "words": 8, "comments": 0})
        self.assertIn(("debug", "i1 has 6 words"), self.host.logs)

    def test_an_update_replaces_the_items_earlier_count(self):
        self.event("form-instance-created", "i1", {"a": "one two three"})
        self.event("form-instance-updated", "i1", {"a": "one"})
        self.assertEqual(self.stats(), {"items": 1, "words": 1, "comments": 0})
        self.assertEqual(self.host.kv["item/i1"], b"1")

    def test_ignored_fields_and_asset_events_count_nothing(self):
        config = {"ignoreFields": ["secret"]}
        self.event("form-instance-created", "i1", {"secret": "do not count me", "a": "count"}, config)
        self.event("asset-state-changed", "asset-1", config=config)
        self.assertEqual(self.stats(), {"items": 1, "words": 1, "comments": 0})

    def test_comments_are_counted(self):
        self.event("comment-created", "c1")
        self.event("comment-created", "c2")
        self.assertEqual(self.stats()["comments"], 2)

    def test_stats_start_at_zero_and_other_routes_are_404(self):
        self.assertEqual(self.stats(), {"items": 0, "words": 0, "comments": 0})
        response = self.call("GET", "/other")
        self.assertEqual((response.status, response.json()), (404, {"error": "not found"}))
        self.assertEqual(self.call("POST", "/stats").status, 404)
        WordCount.manifest.check()

    def test_config_route_answers_the_configuration(self):
        self.assertEqual(self.call("GET", "/config").json(), {})
        self.assertEqual(self.call("GET", "/config", {"ignoreFields": ["x"]}).json(), {"ignoreFields": ["x"]})

    def test_fail_raises_and_print_answers_empty_object(self):
        with self.assertRaisesRegex(ModuleError, "asked to fail"):
            self.call("POST", "/fail")
        self.assertEqual(self.call("POST", "/print").json(), {})

    def test_count_counts_a_text_and_answers_400_with_what_is_wrong_without_one(self):
        # Arrange
        ctx = self.host.context()

        # Act
        counted = self.module.handle_request(ctx, Request("POST", "/count", body=b'{"text": "one two three"}'))
        refused = self.module.handle_request(ctx, Request("POST", "/count", body=b'{"words": 3}'))

        # Assert
        self.assertEqual(counted.json(), {"words": 3})
        self.assertEqual(refused.status, 400)
        self.assertEqual(
            client_error(refused),
            {
                "code": "VALIDATION_FAILED",
                "message": "text must be a string",
                "details": [{"path": "/text", "code": "REQUIRED", "message": "must be a string"}],
            },
        )

    def test_crash_raises_a_key_error(self):
        with self.assertRaises(KeyError):
            self.call("POST", "/crash")

    def test_a_configuration_that_breaks_the_schema_is_refused_with_every_problem(self):
        with self.assertRaises(ConfigRefused) as refused:
            self.event("form-instance-created", "i1", {"a": "x"}, {"unknown": 1, "ignoreFields": ["a", 2]})
        self.assertEqual(
            refused.exception.problems,
            [
                {"path": "", "message": "Additional properties are not allowed ('unknown' was unexpected)"},
                {"path": "/ignoreFields/1", "message": "2 is not of type 'string'"},
            ],
        )
        # Without the manifest's check, config_as still refuses a key the dataclass does not have.
        bare = FakeHost()
        bare.set_item(instance({"a": "x"}))
        with self.assertRaises(ModuleError):
            self.module.on_event(bare.context({"unknown": 1}), Event("form-instance-created", "i1"))

    def test_words_need_a_letter_or_digit(self):
        self.assertEqual(count_words("a — b  42 !!"), 3)
        self.assertEqual(count_words(["x y", 3, {"a": "b"}]), 2)
        self.assertEqual(count_words(True), 0)


if __name__ == "__main__":
    unittest.main()
