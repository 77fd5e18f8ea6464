#!/usr/bin/python3
"""Validates recorded HTTP exchanges against bplaced's OpenAPI document.

Usage:
  validate-responses.py (--document FILE | --bplaced PATH) EXCHANGES...

EXCHANGES are .jsonl files, or directories of them, one exchange a line:
{"method", "target", "status", "content_type", "body", "request_body",
"test"}, as
tests/integration/harness.cc records them when BPLACE_API_EXCHANGES names a
directory. The document is FILE, or what `PATH --print-openapi` prints (the
document bplaced serves at GET /v1/openapi.json).

Each exchange is matched to an operation the way api/router.cc matches
routes: the target's path, cut at '?', split at '/', each segment
percent-decoded; a `{param}` segment matches any non-empty segment, and
where several templates match, the one with a literal leftmost wins. Then:
- a path no template matches must have been answered 404, and a path whose
  templates have no operation for the method 405, both application/problem+json
  as components/schemas/Problem;
- otherwise the operation must list the status (exactly, or as "4XX"; a
  `default` response does not count: the document would say nothing), the
  response's media type must be listed under it, and a JSON body
  (application/json, */*+json) must match its schema (JSON Schema draft
  2020-12, as OpenAPI 3.1 uses it), and a problem's `status` member the
  HTTP status;
- a request body the daemon accepted (2xx) must match the operation's
  requestBody schema: what the decoder takes, the document must allow.
A response with no schema for its status is a failure: the document is
incomplete. Exit 0 when every exchange passes, 1 listing the first mismatches
(test, method, target, status, JSON pointer, message), 2 on a usage error or
when there is nothing to validate.

Runs with Debian 12's python3-jsonschema (4.10), hence /usr/bin/python3 and
no newer API: refs are resolved by validating against a wrapper schema that
holds the document's components, so "#/components/..." resolves in it.
"""

import argparse
import json
import os
import subprocess
import sys
import urllib.parse

try:
    import jsonschema
except ImportError:
    sys.exit("validate-responses: the Python module jsonschema is missing: "
             "install python3-jsonschema (tools/install-deps.sh)")

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
MAX_SHOWN = 20


def load_document(args):
    if args.document:
        with open(args.document, encoding="utf-8") as f:
            return json.load(f)
    try:
        printed = subprocess.run([args.bplaced, "--print-openapi"], capture_output=True,
                                 text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        sys.exit(f"validate-responses: {args.bplaced} --print-openapi: {e}")
    if printed.returncode != 0:
        sys.exit(f"validate-responses: {args.bplaced} --print-openapi exited "
                 f"{printed.returncode}: {printed.stderr.strip()}")
    return json.loads(printed.stdout)


def read_exchanges(paths):
    files = []
    for path in paths:
        if not os.path.exists(path):
            continue  # nothing recorded there
        if os.path.isdir(path):
            files += sorted(os.path.join(path, name) for name in os.listdir(path)
                            if name.endswith(".jsonl"))
        else:
            files.append(path)
    exchanges = []
    for name in files:
        with open(name, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if line.strip():
                    try:
                        exchanges.append(json.loads(line))
                    except json.JSONDecodeError as e:
                        sys.exit(f"validate-responses: {name}:{number}: not JSON: {e}")
    return exchanges


class Document:
    """The document's path templates, responses and schema validators."""

    def __init__(self, document):
        self.document = document
        self.templates = []
        for template, item in document.get("paths", {}).items():
            segments = template[1:].split("/")
            self.templates.append((template, segments, item))
        self.validators = {}

    def match(self, path):
        """The (template, path item) for a raw path, or None; as api/router.cc."""
        segments = [urllib.parse.unquote(part) for part in path[1:].split("/")]
        best, best_literals = None, None
        for template, parts, item in self.templates:
            if len(parts) != len(segments):
                continue
            literals = []
            fits = True
            for part, segment in zip(parts, segments):
                is_param = part.startswith("{") and part.endswith("}")
                fits = fits and (segment != "" if is_param else part == segment)
                literals.append(not is_param)
            if fits and (best is None or literals > best_literals):
                best, best_literals = (template, item), literals
        return best

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node:
            pointer = node["$ref"]
            if not pointer.startswith("#/"):
                raise ValueError(f"only local $refs are supported: {pointer}")
            node = self.document
            for key in pointer[2:].split("/"):
                node = node[key.replace("~1", "/").replace("~0", "~")]
        return node

    def validator(self, key, schema):
        if key not in self.validators:
            wrapper = {"$schema": "https://json-schema.org/draft/2020-12/schema",
                       "components": self.document.get("components", {}),
                       "allOf": [schema]}
            self.validators[key] = jsonschema.Draft202012Validator(wrapper)
        return self.validators[key]


def check_request(doc, route, method, operation, exchange):
    """Mismatches of the request body of an accepted (2xx) request."""
    text = exchange.get("request_body", "")
    if not text or not 200 <= int(exchange["status"]) < 300 or "requestBody" not in operation:
        return []
    content = doc.resolve(operation["requestBody"]).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    if schema is None:
        return [("", "the daemon accepted a JSON body the document has no schema for")]
    try:
        body = json.loads(text)
    except json.JSONDecodeError as e:
        return [("", f"the accepted request body is not JSON: {e}")]
    validator = doc.validator((route, method, "request"), schema)
    return [("request body /" + "/".join(str(p) for p in error.absolute_path), error.message[:300])
            for error in validator.iter_errors(body)]


def check(doc, exchange):
    """The list of (pointer, message) mismatches of one exchange, and its route."""
    method = exchange["method"].lower()
    status = str(exchange["status"])
    path = exchange["target"].split("?", 1)[0]
    matched = doc.match(path) if path.startswith("/") else None
    media = exchange.get("content_type", "").split(";", 1)[0].strip().lower()
    if matched is None:
        route = "(no route)"
        if status != "404":
            return route, [("", f"no path of the document matches, but the status is {status}, not 404")]
        response = {"content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
    elif method not in matched[1]:
        route = matched[0]
        if status != "405":
            return route, [("", f"the document has no {method.upper()} {route}, but the status is {status}, not 405")]
        response = {"content": {"application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}}}
    else:
        route = matched[0]
        responses = matched[1][method].get("responses", {})
        response = responses.get(status) or responses.get(status[0] + "XX")
        if response is None:
            return route, [("", f"the document lists no response {status} for {method.upper()} {route}")]
        response = doc.resolve(response)
        request = check_request(doc, route, method, matched[1][method], exchange)
        if request:
            return route, request
    content = response.get("content", {})
    if not content:
        if exchange.get("body"):
            return route, [("", f"the document lists no content for {status}, but the body is not empty")]
        return route, []
    if media not in content:
        return route, [("", f"content type `{media}` is not one of {sorted(content)}")]
    if not (media == "application/json" or media.endswith("+json")):
        # Text and HTML (GET /metrics, GET /): the media type is what the
        # document can say about them.
        return route, []
    schema = content[media].get("schema")
    if schema is None:
        return route, [("", f"no schema for {media}")]
    try:
        body = json.loads(exchange.get("body", ""))
    except json.JSONDecodeError as e:
        return route, [("", f"the body is not JSON: {e}")]
    mismatches = []
    if media == "application/problem+json" and isinstance(body, dict) and \
            body.get("status") != exchange["status"]:
        # RFC 9457 §3.1.3: the member repeats the response's status.
        mismatches.append(("/status", f"{body.get('status')!r} is not the HTTP status {status}"))
    key = (route, method, status, media)
    errors = sorted(doc.validator(key, schema).iter_errors(body), key=lambda e: list(e.absolute_path))
    return route, mismatches + [("/" + "/".join(str(p) for p in error.absolute_path),
                                 error.message[:300]) for error in errors]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--document", help="the OpenAPI document (JSON)")
    source.add_argument("--bplaced", help="a bplaced binary: its --print-openapi")
    parser.add_argument("exchanges", nargs="+", help=".jsonl files or directories of them")
    args = parser.parse_args()

    doc = Document(load_document(args))
    exchanges = read_exchanges(args.exchanges)
    if not exchanges:
        print(f"validate-responses: no exchanges recorded in {' '.join(args.exchanges)} "
              "(did the tests run with BPLACE_API_EXCHANGES set?)", file=sys.stderr)
        return 2
    failures = []
    seen = set()
    for exchange in exchanges:
        route, mismatches = check(doc, exchange)
        seen.add((exchange["method"].lower(), route))
        for pointer, message in mismatches:
            failures.append((exchange, route, pointer, message))
    if not failures:
        unseen = [f"{method.upper()} {template}" for template, _, item in doc.templates
                  for method in METHODS if method in item and (method, template) not in seen]
        print(f"validate-responses: {len(exchanges)} responses match the document; "
              f"operations no test called: {', '.join(unseen) or 'none'}")
        return 0
    print(f"validate-responses: {len(failures)} mismatches in {len(exchanges)} responses; the first:",
          file=sys.stderr)
    for exchange, route, pointer, message in failures[:MAX_SHOWN]:
        print(f"  {exchange.get('test', '')}: {exchange['method']} {exchange['target']} (route {route}) "
              f"-> {exchange['status']}: {pointer or '/'}: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
