#!/usr/bin/env python3
"""A small JSON Schema (draft-07) lint, standard library only.

    python3 schemalint.py SCHEMA.json

Loads the file (a syntax error or a duplicate key ends the run with status 2), walks every
subschema through the keywords that hold subschemas, and prints one line per finding,
`POINTER: message`, in document order; exits 1 if there was any finding, else 0. Findings:
  - a keyword whose value has the wrong kind (`properties` not an object, `required` not a
    list of strings, an unknown `type` name, ...);
  - a local `$ref` ("#/...") that does not resolve in the document;
  - a `required` name that `properties` (when present) does not define;
  - a `default` whose value does not have the schema's `type`, or is not one of its `enum`;
  - a value listed twice in an `enum`.
"""
import json
import sys

SCHEMA_MAPS = ("properties", "patternProperties", "definitions", "$defs")
SCHEMA_ONE = ("additionalProperties", "additionalItems", "propertyNames", "contains", "not",
              "if", "then", "else")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf")
TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")


def pointer(path):
    if not path:
        return "#"
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def has_type(value, name):
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if isinstance(value, bool):
        return False
    if name == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    return isinstance(value, (int, float))  # number


def resolve(root, ref):
    node = root
    if ref in ("#", "#/"):
        return node
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise LookupError(part)
    return node


class Lint:
    def __init__(self, root):
        self.root = root
        self.findings = []

    def report(self, path, message):
        self.findings.append("%s: %s" % (pointer(path), message))

    def schema(self, node, path):
        if isinstance(node, bool):
            return
        if not isinstance(node, dict):
            self.report(path, "a schema must be an object or a boolean, not %s" % json.dumps(node))
            return
        self.keywords(node, path)
        for key, sub in node.items():
            here = path + [key]
            if key in SCHEMA_MAPS:
                if isinstance(sub, dict):
                    for name, s in sub.items():
                        self.schema(s, here + [name])
            elif key in SCHEMA_ONE:
                self.schema(sub, here)
            elif key in SCHEMA_LISTS:
                if isinstance(sub, list):
                    for i, s in enumerate(sub):
                        self.schema(s, here + [i])
            elif key == "items":
                if isinstance(sub, list):
                    for i, s in enumerate(sub):
                        self.schema(s, here + [i])
                else:
                    self.schema(sub, here)
            elif key == "dependencies" and isinstance(sub, dict):
                for name, s in sub.items():
                    if not isinstance(s, list):
                        self.schema(s, here + [name])

    def keywords(self, node, path):
        for key in SCHEMA_MAPS + ("dependencies",):
            if key in node and not isinstance(node[key], dict):
                self.report(path + [key], "%s must be an object" % key)
        for key in SCHEMA_LISTS:
            if key in node and not (isinstance(node[key], list) and node[key]):
                self.report(path + [key], "%s must be a non-empty array" % key)
        types = node.get("type")
        if types is not None:
            names = types if isinstance(types, list) else [types]
            if not names or any(not isinstance(t, str) or t not in TYPES for t in names):
                self.report(path + ["type"], "unknown type %s" % json.dumps(types))
                types = None
        required = node.get("required")
        if required is not None:
            if not isinstance(required, list) or any(not isinstance(r, str) for r in required):
                self.report(path + ["required"], "required must be an array of strings")
            elif isinstance(node.get("properties"), dict):
                for name in required:
                    if name not in node["properties"]:
                        self.report(path + ["required"], "required property %s is not in properties" % json.dumps(name))
        enum = node.get("enum")
        if enum is not None:
            if not isinstance(enum, list):
                self.report(path + ["enum"], "enum must be an array")
                enum = None
            else:
                seen = []
                for value in enum:
                    if any(value == s and type(value) is type(s) for s in seen):
                        self.report(path + ["enum"], "%s is listed twice" % json.dumps(value))
                    seen.append(value)
        ref = node.get("$ref")
        if ref is not None:
            if not isinstance(ref, str):
                self.report(path + ["$ref"], "$ref must be a string")
            elif ref.startswith("#"):
                try:
                    resolve(self.root, ref)
                except LookupError:
                    self.report(path + ["$ref"], "%s does not resolve" % ref)
        if "default" in node:
            default = node["default"]
            if types is not None:
                names = types if isinstance(types, list) else [types]
                if not any(has_type(default, t) for t in names):
                    self.report(path + ["default"], "default %s does not have type %s" % (json.dumps(default), json.dumps(types)))
            if enum is not None and default not in enum:
                self.report(path + ["default"], "default %s is not in enum" % json.dumps(default))


def no_duplicates(pairs):
    keys = set()
    for key, _ in pairs:
        if key in keys:
            raise ValueError("duplicate key %s" % json.dumps(key))
        keys.add(key)
    return dict(pairs)


def main():
    try:
        with open(sys.argv[1], encoding="utf-8") as f:
            root = json.load(f, object_pairs_hook=no_duplicates)
    except (OSError, ValueError) as e:
        print("schemalint: %s: %s" % (sys.argv[1], e), file=sys.stderr)
        return 2
    lint = Lint(root)
    lint.schema(root, [])
    for line in lint.findings:
        print(line)
    return 1 if lint.findings else 0


if __name__ == "__main__":
    sys.exit(main())
