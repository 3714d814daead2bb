#!/usr/bin/env python3
"""Validates recorded REST responses against an OpenAPI document.

    openapi_responses.py SPEC.yaml RESPONSES.json

RESPONSES.json is a list of {"method", "path", "status", "body"} records
(path without the query string). Each is matched to the spec's path
template ("{x}" matches one segment; the match with the fewest
placeholders wins), the operation's response for the status is looked up
("404", else "4XX", else "default"), and the body is validated with JSON
Schema 2020-12 (Python's jsonschema + referencing) against that response's
application/json schema; a response without content must have no body.
A status the operation does not list is a failure. The spec's OpenAPI 3.0
"nullable: true" is read as "or null". Prints one line per failure and a
summary; exits 1 when anything failed.
"""
import copy
import json
import re
import sys
import urllib.parse

import yaml
from jsonschema import Draft202012Validator

try:
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012
except ImportError:  # jsonschema before 4.18 (Debian 12 ships 4.10): RefResolver instead
    Registry = None

SPEC_URI = "urn:floe:openapi"


def nullable_to_null(node):
    """Rewrites OpenAPI 3.0 `nullable: true` into JSON Schema's null type, in place."""
    if isinstance(node, list):
        for item in node:
            nullable_to_null(item)
        return
    if not isinstance(node, dict):
        return
    for value in node.values():
        nullable_to_null(value)
    if node.get("nullable") is True:
        del node["nullable"]
        kind = node.get("type")
        if isinstance(kind, str):
            node["type"] = [kind, "null"]
        elif isinstance(kind, list):
            if "null" not in kind:
                kind.append("null")
        else:
            inner = copy.deepcopy(node)
            node.clear()
            node["anyOf"] = [inner, {"type": "null"}]


def string_keys(node):
    """YAML reads "200:" as an integer key; JSON pointers and the spec mean strings."""
    if isinstance(node, dict):
        return {str(k): string_keys(v) for k, v in node.items()}
    if isinstance(node, list):
        return [string_keys(v) for v in node]
    return node


def pointer(parts):
    escaped = [str(p).replace("~", "~0").replace("/", "~1") for p in parts]
    return "#" + urllib.parse.quote("/" + "/".join(escaped), safe="/~")


def resolve(spec, node, parts):
    """Follows a local $ref; returns (node, json-pointer parts of it)."""
    while isinstance(node, dict) and "$ref" in node:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            raise ValueError("only local references are supported: " + ref)
        parts = [urllib.parse.unquote(p).replace("~1", "/").replace("~0", "~") for p in ref[2:].split("/")]
        node = spec
        for p in parts:
            node = node[p]
    return node, parts


def template_regex(template):
    return re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")


def main():
    spec_path, responses_path = sys.argv[1], sys.argv[2]
    with open(spec_path) as f:
        spec = string_keys(yaml.safe_load(f))
    nullable_to_null(spec)
    if Registry is not None:
        registry = Registry().with_resource(SPEC_URI, Resource.from_contents(spec, default_specification=DRAFT202012))

        def make_validator(schema):
            return Draft202012Validator(schema, registry=registry)
    else:
        from jsonschema import RefResolver

        resolver = RefResolver(SPEC_URI, spec, store={SPEC_URI: spec})

        def make_validator(schema):
            return Draft202012Validator(schema, resolver=resolver)
    templates = [(t, template_regex(t), t.count("{")) for t in spec["paths"]]
    with open(responses_path) as f:
        records = json.load(f)
    failures = []
    checked = {}
    for i, r in enumerate(records):
        label = f"#{i} {r['method']} {r['path']} -> {r['status']}"
        matches = sorted((n, t) for t, rx, n in templates if rx.match(r["path"]))
        if not matches:
            failures.append(f"{label}: no path of the spec matches")
            continue
        template = matches[0][1]
        method = r["method"].lower()
        operation = spec["paths"][template].get(method)
        if operation is None:
            failures.append(f"{label}: the spec has no {r['method']} {template}")
            continue
        status = str(r["status"])
        responses = operation.get("responses", {})
        key = next((k for k in (status, status[0] + "XX", "default") if k in responses), None)
        if key is None:
            failures.append(f"{label}: status {status} is not listed for {operation.get('operationId')}")
            continue
        response, parts = resolve(spec, responses[key], ["paths", template, method, "responses", key])
        name = f"{operation.get('operationId')} {status}"
        checked[name] = checked.get(name, 0) + 1
        content = (response.get("content") or {}).get("application/json")
        body = r.get("body") or ""
        if content is None or "schema" not in content:
            if body.strip() and method != "head":
                failures.append(f"{label}: the spec lists no body for {name}, got {body[:200]}")
            continue
        if method == "head":
            continue
        try:
            document = json.loads(body)
        except ValueError as e:
            failures.append(f"{label}: body is not JSON ({e}): {body[:200]}")
            continue
        schema = {"$ref": SPEC_URI + pointer(parts + ["content", "application/json", "schema"])}
        validator = make_validator(schema)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        for e in errors[:5]:
            where = "/".join(str(p) for p in e.absolute_path) or "(root)"
            failures.append(f"{label}: {name}: at {where}: {e.message[:300]}")
    for line in failures:
        print("FAIL " + line)
    print(f"{len(records)} responses, {len(checked)} operation/status pairs: " +
          ", ".join(f"{k} x{v}" for k, v in sorted(checked.items())))
    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
