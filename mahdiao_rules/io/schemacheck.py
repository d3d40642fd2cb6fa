"""Validate a parsed :class:`~mahdiao_rules.io.yamlsafe.Document` against a bundled JSON Schema.

The schemas live in ``mahdiao_rules/io/schemas/<name>.schema.json``.  A failed
check raises one :class:`~mahdiao_rules.errors.InputError` for the most
relevant problem, worded for someone who edits deal files rather than code,
with the file, the line and the key path of the offending value.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Sequence
from decimal import Decimal
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import SchemaError, ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from ..errors import InputError, MahdiaoError
from .resources import SCHEMA_DIR, schema_path
from .yamlsafe import Document, format_path

__all__ = ["check", "load_schema"]

_MAX_MESSAGE = 200
_MAX_LISTED = 12

_TYPE_NAMES = {
    "string": "text",
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true/false",
    "array": "a list",
    "object": "a mapping",
    "null": "nothing",
}


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The bundled JSON Schema *name* (``schemas/<name>.schema.json``), parsed once."""
    return _read_schema(schema_path(name), name)


def _read_schema(path: Path, name: str) -> dict[str, Any]:
    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        # A broken installation, not bad user input.
        raise MahdiaoError(f"bundled schema {name!r} cannot be read from {path}: {exc}") from exc
    if not isinstance(schema, dict):
        raise MahdiaoError(f"bundled schema {name!r} is not a JSON object")
    return schema


@cache
def _validator(name: str) -> Any:
    return _make_validator(load_schema(name))


def _exact_multiple_of(validator: Any, step: Any, instance: Any, schema: Any) -> Iterator[ValidationError]:
    """``multipleOf`` in exact arithmetic: the reader gives Decimals (``0.50000000000000001``
    is not a multiple of 0.5, although a float division says it is)."""
    if not isinstance(instance, int | Decimal) or isinstance(instance, bool):
        yield from _MULTIPLE_OF(validator, step, instance, schema)
        return
    exact_step = Fraction(str(step)) if isinstance(step, float) else Fraction(step)
    if Fraction(instance) % exact_step:
        yield ValidationError(f"{instance} is not a multiple of {step}")


_MULTIPLE_OF = Draft202012Validator.VALIDATORS["multipleOf"]
_Validator = validators.extend(Draft202012Validator, {"multipleOf": _exact_multiple_of})


def _make_validator(schema: dict[str, Any]) -> Any:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        raise MahdiaoError(f"invalid JSON Schema: {exc.message}") from exc
    return _Validator(schema, registry=_registry())


@cache
def _registry() -> Registry:
    """Every bundled schema by its ``$id``, so one schema can ``$ref`` another's parts
    (a sitting's hands reuse the deal schema's tricks, events and seats)."""
    resources = []
    for path in sorted(SCHEMA_DIR.glob("*.schema.json")):
        # Read from the folder itself, not through schema_path: the registry holds the
        # bundled schemas whichever schema a caller (or a test) checks against.
        schema = _read_schema(path, path.name.removesuffix(".schema.json"))
        if "$id" in schema:
            resources.append((schema["$id"], Resource.from_contents(schema, DRAFT202012)))
    return Registry().with_resources(resources)


def check(doc: Document, schema_name: str, definition: str | None = None,
          without: tuple[str, ...] = ()) -> None:
    """Raise an InputError for the most relevant way *doc* breaks schema *schema_name*.

    With *definition*, *doc* is checked against ``$defs/<definition>`` of the schema
    (one deal of a streamed collection against ``deal``), less the properties named in
    *without* (the header of a collection without its ``deals``).  Paths and lines are
    those of the whole file when *doc* has a ``base``.
    """
    if definition is None:
        _check(doc, _validator(schema_name))
    else:
        _check(doc, _def_validator(schema_name, definition, without))


@cache
def _def_validator(name: str, definition: str, without: tuple[str, ...]) -> Draft202012Validator:
    schema = load_schema(name)
    target = dict(schema["$defs"][definition])
    if without:
        target["properties"] = {k: v for k, v in target["properties"].items() if k not in without}
        target["required"] = [k for k in target.get("required", []) if k not in without]
    return _make_validator({"$schema": schema.get("$schema"), "$defs": schema["$defs"], **target})


def _check(doc: Document, validator: Any) -> None:
    _check_finite(doc)
    errors = list(validator.iter_errors(_json_view(doc.data)))
    if not errors:
        return
    # A misspelt key shows up twice (unknown 'stok', missing 'stock'); the unknown key is
    # the actual mistake, so it wins.
    unknown = [e for e in errors if e.validator == "additionalProperties"]
    error = best_match(unknown or errors)
    assert error is not None
    path = list(error.absolute_path)
    message, line_path = _explain(error, path)
    more = len(errors) - 1
    if more:
        message += f" (and {more} more problem{'s' if more > 1 else ''})"
    raise InputError(message, file=doc.file, line=doc.line_of((*doc.base, *line_path)),
                     place=format_path((*doc.base, *path)))


def _check_finite(doc: Document) -> None:
    """JSON has no infinity or NaN: YAML's ``.inf`` and ``.nan`` are refused wherever they are.

    (A JSON Schema ``number`` would accept them, and no amount, count or pool can be infinite.)
    """
    for path, value in _walk(doc.data):
        if isinstance(value, float) and not math.isfinite(value):
            shown = ".nan" if math.isnan(value) else ("-.inf" if value < 0 else ".inf")
            raise InputError(f"{shown} is not a usable number here (infinity and NaN are not allowed)",
                             file=doc.file, line=doc.line_of((*doc.base, *path)),
                             place=format_path((*doc.base, *path)))


def _walk(data: Any) -> Iterator[tuple[list[str | int], Any]]:
    """Every value of *data* with its key path, depth-first in document order, without recursion."""
    stack: list[tuple[list[str | int], Any]] = [([], data)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, dict):
            stack.extend(([*path, k], v) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend(([*path, i], v) for i, v in reversed(list(enumerate(value))))


def _json_view(data: Any) -> Any:
    """*data* as JSON sees it: integer mapping keys become text (JSON keys are always text)."""
    if isinstance(data, dict):
        return {str(k) if isinstance(k, int) else k: _json_view(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_json_view(v) for v in data]
    return data


def _explain(error: ValidationError, path: list[str | int]) -> tuple[str, Sequence[str | int]]:
    """A plain-words message for *error*, and the key path whose line to show."""
    keyword = error.validator
    value = error.validator_value
    instance = error.instance
    schema = error.schema if isinstance(error.schema, dict) else {}

    if keyword in ("additionalProperties", "unevaluatedProperties") and isinstance(instance, dict):
        extras = _unknown_keys(error, schema, instance)
        if extras:
            allowed = list(schema.get("properties", {}))
            noun = "key" if len(extras) == 1 else "keys"
            message = f"unknown {noun} {', '.join(_quote(k) for k in extras)}"
            if allowed:
                message += f" (allowed: {_listing(allowed)})"
            # Point at the first bad key itself, not at the mapping holding it.
            return message, [*path, extras[0]]
    if keyword == "required" and isinstance(instance, dict) and isinstance(value, list):
        missing = [k for k in value if k not in instance]
        # One error per missing key; its message starts with that key's repr.
        for key in missing:
            if error.message.startswith(repr(key)):
                return f"missing key {_quote(key)}", path
        if missing:
            return f"missing key {_quote(missing[0])}", path
    if keyword == "type":
        wanted = [value] if isinstance(value, str) else list(value)
        expected = " or ".join(_TYPE_NAMES.get(t, t) for t in wanted)
        message = f"expected {expected}, got {_describe(instance)}"
        if "boolean" in wanted and isinstance(instance, str) and instance.lower() in _YAML11_BOOLS:
            message += " (write true or false)"
        elif ({"integer", "number"} & set(wanted) and isinstance(instance, str)
              and _LEADING_ZERO.match(instance)):
            message += " (a number with a leading zero stays text: write it without the zero)"
        elif not path and wanted == ["object"]:
            message += " (the file must be a mapping of keys to values)"
        return message, path
    if keyword == "pattern" and isinstance(instance, str):
        hint = schema.get("description") if isinstance(schema.get("description"), str) else None
        message = f"{_show(instance)} is not in the required form"
        return message + (f" ({_trim(hint, 100)})" if hint else f" (pattern {value})"), path
    if keyword == "minLength" and isinstance(instance, str) and value == 1:
        return "must not be empty", path
    if keyword == "multipleOf":
        return f"must be a multiple of {_show(value)}, got {_show(instance)}", path
    if keyword == "enum" and isinstance(value, list):
        return f"{_show(instance)} is not one of {_listing(value)}", path
    if keyword == "const":
        return f"expected {_show(value)}, got {_show(instance)}", path
    if keyword in ("minItems", "maxItems") and isinstance(instance, list):
        low, high = schema.get("minItems"), schema.get("maxItems")
        if low is not None and low == high:
            bound = f"{low}"
        elif keyword == "minItems":
            bound = f"at least {value}"
        else:
            bound = f"at most {value}"
        return f"expected {bound} item{'' if value == 1 else 's'}, got {len(instance)}", path
    if keyword in ("minProperties", "maxProperties") and isinstance(instance, dict):
        bound = "at least" if keyword == "minProperties" else "at most"
        return f"expected {bound} {value} key{'' if value == 1 else 's'}, got {len(instance)}", path
    if keyword in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        relation = {
            "minimum": "at least",
            "maximum": "at most",
            "exclusiveMinimum": "more than",
            "exclusiveMaximum": "less than",
        }[keyword]
        return f"must be {relation} {_show(value)}, got {_show(instance)}", path
    if keyword in ("anyOf", "oneOf"):
        # None of the alternatives fit: say what the value should be, not the whole instance.
        what = schema.get("description")
        if not what:
            kinds = [s.get("description") for s in value if isinstance(s, dict) and s.get("description")]
            what = " or ".join(kinds)
        if what:
            return _trim(f"{_describe(instance)} does not fit here: expected {what}"), path
        return _trim(f"{_describe(instance)} does not fit here"), path
    return _trim(error.message), path


_YAML11_BOOLS = frozenset({"yes", "no", "on", "off", "y", "n"})
_LEADING_ZERO = re.compile(r"[-+]?0[0-9]+(?:\.[0-9]*)?\Z")


def _unknown_keys(error: ValidationError, schema: dict[str, Any], instance: dict[str, Any]) -> list[str]:
    if error.validator == "additionalProperties":
        known = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        return [k for k in instance
                if k not in known and not any(re.search(p, str(k)) for p in patterns)]
    # unevaluatedProperties: which keys went unevaluated is only in the message,
    # "Unevaluated properties are not allowed ('a', 'b' were unexpected)".
    found = re.search(r"\((.*) (?:was|were) unexpected\)", error.message)
    if not found:
        return []
    return [k for k in instance if repr(k) in found.group(1)]


def _describe(value: Any) -> str:
    """What a non-programmer would call *value*, with a glimpse of it."""
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"true/false value {'true' if value else 'false'}"
    if isinstance(value, int):
        return f"whole number {value}"
    if isinstance(value, float | Decimal):
        return f"number {value}"
    if isinstance(value, str):
        return f"text {_quote(value)}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__  # pragma: no cover - data is always plain JSON


def _show(value: Any) -> str:
    """A short rendering of a value in a message: text quoted, everything else as JSON."""
    if isinstance(value, str):
        return _quote(value)
    if isinstance(value, Decimal):
        return str(value)
    try:
        return _trim(json.dumps(value, ensure_ascii=False), 60)
    except (TypeError, ValueError):  # pragma: no cover
        return _trim(repr(value), 60)


def _quote(text: str, limit: int = 60) -> str:
    return repr(_trim(str(text), limit))


def _listing(values: Sequence[Any]) -> str:
    shown = [v if isinstance(v, str) else _show(v) for v in values[:_MAX_LISTED]]
    if len(values) > _MAX_LISTED:
        shown.append(f"… ({len(values) - _MAX_LISTED} more)")
    return ", ".join(shown)


def _trim(text: str, limit: int = _MAX_MESSAGE) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
