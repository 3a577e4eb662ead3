"""The SDK's own tests: the fake host keeps the host's key-value semantics, routes, config, errors."""

import json
import unittest
from dataclasses import dataclass, field

from trellis_sdk import (
    Event, HttpError, Manifest, ModuleError, Request, Router, SpaceModule, bad_request, describe_uncaught,
    error_response, json_response, not_found,
)
from trellis_sdk.testing import ConfigRefused, FakeHost, PermissionRefused, check_config, client_error


class KeyValueTest(unittest.TestCase):
    def setUp(self):
        self.host = FakeHost()
        self.kv = self.host.context().kv

    def test_a_failed_call_leaves_the_store_as_it_was_as_the_real_host_drops_its_writes(self):
        host = self.host
        kv = self.kv
        kv.set("kept", b"before")

        def failing():
            kv.set("kept", b"changed")
            kv.set("new", b"x")
            raise ModuleError("failed")

        with self.assertRaises(ModuleError):
            host.call(failing)
        self.assertEqual((host.kv.get("kept"), host.kv.get("new")), (b"before", None))
        self.assertEqual(host.call(lambda: kv.set("new", b"y") or 7), 7)
        self.assertEqual(host.kv["new"], b"y")

    def test_a_module_s_hooks_called_with_a_fake_host_s_context_keep_no_writes_of_a_failed_call(self):
        # Arrange
        router = Router()

        @router.post("/ask")
        def ask(ctx, request):
            ctx.kv.set("asked", b"1")
            raise TypeError("then it breaks")

        class HalfWrites(SpaceModule):
            manifest = manifest_with(["key-value"])

            def on_event(self, ctx, event):
                ctx.kv.set("heard", b"1")
                raise ModuleError("then it fails")

        HalfWrites.router = router
        module, ctx = HalfWrites(), self.host.context()

        # Act
        with self.assertRaises(ModuleError):
            module.on_event(ctx, Event("comment-created", "c1"))
        with self.assertRaises(TypeError):
            module.handle_request(ctx, Request("POST", "/ask"))

        # Assert
        self.assertEqual(self.host.kv, {})

    def test_increment_keeps_decimal_text_and_starts_at_zero(self):
        self.assertEqual(self.kv.increment("n", 5), 5)
        self.assertEqual(self.kv.increment("n", -7), -2)
        self.assertEqual(self.kv.get("n"), b"-2")
        self.assertEqual(self.kv.get_int("n"), -2)
        self.assertEqual(self.kv.get_int("absent"), 0)

    def test_increment_refuses_non_integers_and_overflow_changing_nothing(self):
        self.kv.set("text", b"12a")
        with self.assertRaises(ModuleError):
            self.kv.increment("text", 1)
        self.kv.set("big", str(2**63 - 1).encode())
        with self.assertRaises(ModuleError):
            self.kv.increment("big", 1)
        self.assertEqual((self.kv.get("text"), self.kv.get("big")), (b"12a", str(2**63 - 1).encode()))

    def test_compare_and_swap_compares_exact_bytes_and_deletes_on_none(self):
        self.assertTrue(self.kv.compare_and_swap("k", None, b"1"))
        self.assertFalse(self.kv.compare_and_swap("k", None, b"2"))
        self.assertFalse(self.kv.compare_and_swap("k", b"2", b"3"))
        self.assertTrue(self.kv.compare_and_swap("k", b"1", None))
        self.assertIsNone(self.kv.get("k"))

    def test_update_json_retries_when_another_call_changed_the_key(self):
        self.kv.set_json("doc", {"n": 1})
        raced = []

        def bump(old):
            if not raced:  # another invocation writes between our read and our swap
                raced.append(True)
                self.kv.set_json("doc", {"n": 10})
            return {"n": old["n"] + 1}

        self.assertEqual(self.kv.update_json("doc", bump), ({"n": 10}, {"n": 11}))
        self.assertEqual(self.kv.get_json("doc"), {"n": 11})

    def test_sizes_are_bounded_and_keys_listed_in_order(self):
        with self.assertRaises(ModuleError):
            self.kv.set("k" * 513, b"")
        for key in ["b", "a/2", "a/1"]:
            self.kv.set(key, b"")
        self.assertEqual(self.kv.list_keys("a/"), ["a/1", "a/2"])
        self.assertEqual(self.kv.list_keys("", start_after="a/2"), ["b"])


class RouterAndContextTest(unittest.TestCase):
    def test_routes_match_method_and_segments_with_parameters(self):
        router = Router()

        @router.get("/items/{id}")
        def item(_ctx, request):
            return json_response({"id": request.params["id"]})

        ctx = FakeHost().context()
        self.assertEqual(router.dispatch(ctx, Request("GET", "/items/7/")).json(), {"id": "7"})
        self.assertEqual(router.dispatch(ctx, Request("POST", "/items/7")).status, 404)
        self.assertEqual(router.dispatch(ctx, Request("GET", "/items")).json(), {"error": "not found"})

    def test_config_as_fills_a_dataclass_from_camel_case_and_refuses_unknown_keys(self):
        @dataclass
        class Config:
            ignore_fields: list = field(default_factory=list)

        host = FakeHost()
        self.assertEqual(host.context({"ignoreFields": ["a"]}).config_as(Config).ignore_fields, ["a"])
        self.assertEqual(host.context("").config_as(Config).ignore_fields, [])
        with self.assertRaises(ModuleError):
            host.context({"other": 1}).config_as(Config)
        with self.assertRaises(ModuleError):
            host.context("{not json")

    def test_items_and_bodies_are_parsed_json(self):
        host = FakeHost()
        host.set_item({"formId": "f"})
        self.assertEqual(host.context().item(), {"formId": "f"})
        self.assertEqual(Request("POST", "/", body=b'{"a":1}').json(), {"a": 1})
        with self.assertRaises(HttpError) as raised:
            Request("POST", "/", body=b"{").json()
        self.assertEqual((raised.exception.status, raised.exception.message), (400, "request body is not JSON"))


class ErrorAnswerTest(unittest.TestCase):
    def test_error_response_writes_the_contract_envelope_with_details_only_when_there_are_some(self):
        details = [{"path": "/choice", "code": "NOT_AN_OPTION", "message": "not one of a, b"}]
        self.assertEqual(
            bad_request("choice is not an option", details).json(),
            {"error": {"code": "VALIDATION_FAILED", "message": "choice is not an option", "details": details}},
        )
        conflict = error_response(409, "CONFLICT", "already voted")
        self.assertEqual(conflict.status, 409)
        self.assertEqual(conflict.json(), {"error": {"code": "CONFLICT", "message": "already voted"}})
        with self.assertRaises(ValueError):
            error_response(200, "CONFLICT", "no")

    def test_an_http_error_raised_by_a_route_is_its_answer_which_the_client_sees_as_the_envelope(self):
        # Arrange
        router = Router()
        details = [{"path": "/choice", "code": "REQUIRED", "message": "is required"}]

        @router.post("/vote")
        def vote(_ctx, request):
            choice = (request.json() or {}).get("choice")
            if not isinstance(choice, str):
                raise HttpError.bad_request("choice must be a string", details)
            return json_response({"choice": choice})

        ctx = FakeHost().context()

        # Act
        missing = router.dispatch(ctx, Request("POST", "/vote", body=b"{}"))
        not_json = router.dispatch(ctx, Request("POST", "/vote", body=b"{"))
        chosen = router.dispatch(ctx, Request("POST", "/vote", body=b'{"choice": "a"}'))

        # Assert
        self.assertEqual(missing.status, 400)
        expected = {"code": "VALIDATION_FAILED", "message": "choice must be a string", "details": details}
        self.assertEqual(client_error(missing), expected)
        self.assertEqual((not_json.status, client_error(not_json)["message"]), (400, "request body is not JSON"))
        self.assertEqual(chosen.json(), {"choice": "a"})
        self.assertIsNone(client_error(chosen))

    def test_client_error_applies_the_host_s_rules_to_bodies_of_other_shapes(self):
        self.assertEqual(
            client_error(json_response({"error": "choice must be a string"}, 400)),
            {"code": "VALIDATION_FAILED", "message": "choice must be a string"},
        )
        taken = json_response({"message": "taken"}, 409)
        self.assertEqual(client_error(taken), {"code": "CONFLICT", "message": "taken"})
        self.assertEqual(
            client_error(json_response({"choice": 1}, 400)), {"code": "VALIDATION_FAILED", "message": "bad request"}
        )
        self.assertEqual(client_error(not_found()), {"code": "NOT_FOUND", "message": "not found"})
        # A code the contract gives another status yields to the status's own.
        self.assertEqual(client_error(error_response(409, "NOT_FOUND", "x"))["code"], "CONFLICT")

    def test_an_uncaught_exception_is_described_with_its_type_file_and_line(self):
        # Arrange
        def handler():
            return json_response(json.loads("{"))

        # Act
        try:
            handler()
        except ValueError as e:
            head, trace = describe_uncaught(e)

        # Assert: the place is this file's own line, not the standard library's where it was raised.
        line = handler.__code__.co_firstlineno + 1
        self.assertRegex(head, rf"^JSONDecodeError: .+ \(at \S*test_sdk\.py:{line}\)$")
        self.assertIn("json/decoder.py", trace)
        self.assertEqual(trace.splitlines()[0], head)
        self.assertIn(f'test_sdk.py", line {line}', trace)


SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": ["max"],
    "properties": {"max": {"type": "integer", "minimum": 1}, "title": {"type": "string"}, "mode": {"enum": ["a", "b"]}},
}
EVERY_PERMISSION = ["key-value", "logging", "item-read"]


def manifest_with(permissions, config_schema=None):
    return Manifest(
        id="probe", name="Probe", version="0.1.0", config_schema=SCHEMA if config_schema is None else config_schema,
        permissions=permissions,
    )


class Probe(SpaceModule):
    """Counts events, logs them and keeps the last item: it uses every capability."""

    router = Router()

    def __init__(self, permissions):
        self.manifest = manifest_with(permissions)

    def on_event(self, ctx, event):
        ctx.kv.increment("events", 1)
        ctx.log.info(event.kind)
        ctx.kv.set_json("last", ctx.item())


class HostRefusalTest(unittest.TestCase):
    def test_a_configuration_that_breaks_the_schema_is_refused_with_every_problem(self):
        # Arrange
        host = FakeHost(manifest_with(EVERY_PERMISSION))

        # Act
        with self.assertRaises(ConfigRefused) as refused:
            host.context({"max": 0, "title": 7, "mode": "c", "colour": "red"})

        # Assert: each problem with its JSON Pointer, and in the message as the Rust SDK's check_config words it.
        self.assertIsInstance(refused.exception, ModuleError)
        self.assertEqual(
            refused.exception.problems,
            [
                {"path": "", "message": "Additional properties are not allowed ('colour' was unexpected)"},
                {"path": "/max", "message": "0 is less than the minimum of 1"},
                {"path": "/title", "message": "7 is not of type 'string'"},
                {"path": "/mode", "message": "'c' is not one of ['a', 'b']"},
            ],
        )
        self.assertRegex(
            str(refused.exception),
            r"^the configuration breaks the module's schema: : Additional .*; /max: 0 is less than the minimum of 1; ",
        )
        with self.assertRaisesRegex(ConfigRefused, "'max' is a required property"):
            host.context("")
        with self.assertRaisesRegex(ModuleError, "not JSON"):
            host.context("{")

    def test_a_configuration_that_fits_is_the_context_s_config(self):
        host = FakeHost(manifest_with(EVERY_PERMISSION))
        ctx = host.context({"max": 3, "mode": "b"}, space_id="space-9")
        self.assertEqual((ctx.config, ctx.space_id, ctx.module_id), ({"max": 3, "mode": "b"}, "space-9", "probe"))
        self.assertEqual(host.context('{"max": 1}').config, {"max": 1})
        # Without a manifest, as before: no schema to check.
        self.assertEqual(FakeHost().context({"anything": True}).config, {"anything": True})

    def test_check_config_follows_the_schema_s_draft_format_asserted_in_draft_7_not_in_2020_12(self):
        def email(draft):
            return manifest_with([], {"$schema": draft, "properties": {"to": {"format": "email"}}})

        self.assertEqual(
            check_config(email("http://json-schema.org/draft-07/schema#"), {"to": "nobody"}),
            [{"path": "/to", "message": "'nobody' is not a 'email'"}],
        )
        self.assertEqual(check_config(email("https://json-schema.org/draft/2020-12/schema"), {"to": "nobody"}), [])
        with self.assertRaisesRegex(ModuleError, "config_schema is not a valid JSON Schema"):
            check_config(manifest_with([], {"type": 12}), {})

    def test_a_manifest_missing_a_permission_its_component_imports_is_refused_with_the_fix(self):
        # Arrange: the world (wit/world.wit) imports key-value, logging and item-read; the manifest asks for one.
        manifest = manifest_with(["logging"])

        # Act
        with self.assertRaises(PermissionRefused) as refused:
            FakeHost(manifest)

        # Assert: refused as the host refuses it at load, used or not, with the line to add for each.
        self.assertEqual(refused.exception.permissions, ["key-value", "item-read"])
        self.assertEqual(
            str(refused.exception),
            'the host refuses to load module "probe": it imports trellis:module/key-value@0.2.0 without asking for '
            'the "key-value" permission: add it to the manifest (`permissions=["key-value", ...]`); it imports '
            'trellis:module/item-read@0.2.0 without asking for the "item-read" permission: add it to the manifest '
            '(`permissions=["item-read", ...]`)',
        )
        FakeHost(manifest_with(EVERY_PERMISSION))

    def test_a_capability_used_without_its_permission_raises_naming_it_and_the_fix_and_works_with_it(self):
        # Arrange: a component that imports nothing (`imports=[]`), so only the use of a capability is refused.
        event = Event("comment-created", "c1")

        def run(permissions):
            host = FakeHost(manifest_with(permissions), imports=[])
            host.set_item({"id": "c1"})
            Probe(permissions).on_event(host.context({"max": 1}), event)
            return host

        # Act, Assert: not a ModuleError, so the module's own `except ModuleError` cannot hide it.
        with self.assertRaises(PermissionRefused) as refused:
            run([])
        self.assertNotIsInstance(refused.exception, ModuleError)
        self.assertEqual(refused.exception.permissions, ["key-value"])
        self.assertRegex(str(refused.exception), r'"key-value" permission: .*`permissions=\["key-value", \.\.\.\]`')
        with self.assertRaisesRegex(PermissionRefused, r'"logging" permission.*permissions=\["logging"'):
            run(["key-value"])
        with self.assertRaisesRegex(PermissionRefused, r'"item-read" permission.*permissions=\["item-read"'):
            run(["key-value", "logging"])

        # With every permission it uses, the same module runs.
        host = run(EVERY_PERMISSION)
        self.assertEqual((host.kv["events"], host.kv["last"]), (b"1", b'{"id":"c1"}'))
        self.assertEqual(host.logs, [("info", "comment-created")])


if __name__ == "__main__":
    unittest.main()
