#!/usr/bin/python3
"""Tests of tools/validate-responses.py on a small document and hand-made
exchanges in a temp dir (ctest validate_responses_test).

Run: /usr/bin/python3 tests/tools/validate_responses_test.py. Needs
python3-jsonschema, as the validator does.
"""

import json
import os
import subprocess
import tempfile
import unittest

VALIDATOR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "tools", "validate-responses.py")

PROBLEM = {"content": {"application/problem+json": {
    "schema": {"$ref": "#/components/schemas/Problem"}}}}

DOCUMENT = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {
        "/v1/queues": {"get": {"responses": {
            "200": {"description": "ok", "content": {"application/json": {"schema": {
                "type": "object", "required": ["queues"], "additionalProperties": False,
                "properties": {"queues": {"type": "array", "items": {"type": "string"}}}}}}},
            "4XX": {"$ref": "#/components/responses/Problem"}}}},
        "/v1/queues/{name}": {"get": {"responses": {
            "200": {"description": "by name", "content": {"application/json": {"schema": {
                "type": "object", "required": ["name"],
                "properties": {"name": {"type": "string"}}}}}}}}},
        "/v1/jobs": {"post": {
            "requestBody": {"content": {"application/json": {"schema": {
                "type": "object", "additionalProperties": False,
                "properties": {"slots": {"type": "integer", "maximum": 8}}}}}},
            "responses": {"201": {"description": "made", "content": {"application/json": {
                "schema": {"type": "object"}}}},
                          "400": {"$ref": "#/components/responses/Problem"}}}},
        "/metrics": {"get": {"responses": {"200": {"description": "text", "content": {
            "text/plain": {"schema": {"type": "string"}}}}}}},
        "/v1/queues/special": {"get": {"responses": {
            "200": {"description": "literal", "content": {"application/json": {"schema": {
                "type": "object", "required": ["special"]}}}}}}},
    },
    "components": {
        "schemas": {"Problem": {"type": "object", "required": ["type", "status"],
                                "properties": {"type": {"type": "string"},
                                               "status": {"type": "integer"}}}},
        "responses": {"Problem": dict(PROBLEM, description="a problem")},
    },
}


def exchange(method, target, status, body, content_type="application/json", request_body=""):
    return {"method": method, "target": target, "status": status,
            "content_type": content_type, "body": json.dumps(body) if not isinstance(body, str) else body,
            "request_body": request_body, "test": "Suite.Case"}


class ValidateResponsesTest(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="validate-responses-test-")
        self.document = os.path.join(self._tmp.name, "openapi.json")
        with open(self.document, "w", encoding="utf-8") as f:
            json.dump(DOCUMENT, f)
        self.exchanges = os.path.join(self._tmp.name, "exchanges")
        os.mkdir(self.exchanges)

    def tearDown(self):
        self._tmp.cleanup()

    def run_validator(self, *exchanges):
        with open(os.path.join(self.exchanges, "1.jsonl"), "w", encoding="utf-8") as f:
            for item in exchanges:
                f.write(json.dumps(item) + "\n")
        return subprocess.run([VALIDATOR, "--document", self.document, self.exchanges],
                              capture_output=True, text=True, timeout=60, check=False)

    def test_passes_answers_that_match_their_schemas(self):
        result = self.run_validator(
            exchange("GET", "/v1/queues?x=1", 200, {"queues": ["a"]}),
            exchange("GET", "/v1/queues/normal", 200, {"name": "normal"}),
            exchange("GET", "/v1/queues", 400, {"type": "about:blank", "status": 400},
                     "application/problem+json"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("3 responses match", result.stdout)

    def test_names_the_pointer_and_test_of_a_wrong_field(self):
        result = self.run_validator(exchange("GET", "/v1/queues", 200, {"queues": ["a", 7]}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("Suite.Case: GET /v1/queues (route /v1/queues) -> 200: /queues/1:", result.stderr)

    def test_refuses_a_field_the_document_does_not_have(self):
        result = self.run_validator(exchange("GET", "/v1/queues", 200, {"queues": [], "extra": 1}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("'extra' was unexpected", result.stderr)

    def test_a_problem_must_repeat_the_http_status(self):
        result = self.run_validator(exchange("GET", "/v1/queues", 404, {"type": "t", "status": 400},
                                             "application/problem+json"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("/status: 400 is not the HTTP status 404", result.stderr)

    def test_a_status_the_operation_does_not_list_is_a_failure(self):
        result = self.run_validator(exchange("GET", "/v1/queues/x", 503, {"type": "t", "status": 503},
                                             "application/problem+json"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("lists no response 503 for GET /v1/queues/{name}", result.stderr)

    def test_a_literal_segment_wins_over_a_parameter(self):
        result = self.run_validator(exchange("GET", "/v1/queues/special", 200, {"name": "special"}))
        self.assertEqual(result.returncode, 1)
        self.assertIn("(route /v1/queues/special)", result.stderr)

    def test_percent_escapes_are_decoded_before_matching(self):
        result = self.run_validator(exchange("GET", "/v1/queues/speci%61l", 200, {"special": 1}))
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_unknown_paths_must_be_404_and_unknown_methods_405_problems(self):
        ok = self.run_validator(
            exchange("GET", "/v2/nothing", 404, {"type": "about:blank", "status": 404}, "application/problem+json"),
            exchange("DELETE", "/v1/queues", 405, {"type": "about:blank", "status": 405},
                     "application/problem+json"))
        self.assertEqual(ok.returncode, 0, ok.stderr)
        bad = self.run_validator(exchange("GET", "/v2/nothing", 200, {}))
        self.assertEqual(bad.returncode, 1)
        self.assertIn("no path of the document matches", bad.stderr)

    def test_a_media_type_the_response_does_not_list_is_a_failure(self):
        result = self.run_validator(exchange("GET", "/v1/queues", 200, "<html/>", "text/html"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("content type `text/html`", result.stderr)

    def test_a_text_answer_needs_only_its_media_type_listed(self):
        ok = self.run_validator(exchange("GET", "/metrics", 200, "bplace_up 1\n",
                                         "text/plain; version=0.0.4"))
        self.assertEqual(ok.returncode, 0, ok.stderr)
        bad = self.run_validator(exchange("GET", "/metrics", 200, "<html/>", "text/html"))
        self.assertEqual(bad.returncode, 1)

    def test_a_body_that_is_not_json_is_a_failure(self):
        result = self.run_validator(exchange("GET", "/v1/queues", 200, "{not json"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("not JSON", result.stderr)

    def test_a_request_body_the_daemon_accepted_must_match_the_request_schema(self):
        result = self.run_validator(
            exchange("POST", "/v1/jobs", 201, {}, request_body='{"slots": 4}'),
            exchange("POST", "/v1/jobs", 400, {"type": "t", "status": 400}, "application/problem+json",
                     request_body='{"slots": 99}'))
        self.assertEqual(result.returncode, 0, result.stderr)
        result = self.run_validator(exchange("POST", "/v1/jobs", 201, {}, request_body='{"slots": 9}'))
        self.assertEqual(result.returncode, 1)
        self.assertIn("request body /slots:", result.stderr)

    def test_nothing_recorded_is_a_usage_error(self):
        result = self.run_validator()
        self.assertEqual(result.returncode, 2)
        self.assertIn("no exchanges recorded", result.stderr)


if __name__ == "__main__":
    unittest.main()
