"""Hypothesis strategies that spoil a valid document, for the file-loader fuzzers
(tests/test_fuzz_files.py).

A fuzzer starts from a document that loads (an example scene, the example game, a saved camera)
and applies a few mutations at random places: delete a key or an item, replace a value by a
value of another type (null, booleans, huge, tiny and negative numbers, NaN and infinities,
strings with newlines and unicode, nested lists and objects, deep nesting), duplicate an item
(duplicate ids), wrap a value in a list or an object, rename a key, scale a number. Byte-level
mutations spoil the file itself: truncation, deleted or inserted bytes, invalid UTF-8, a BOM,
deep brackets, random bytes.

`to_toml` writes a decoded TOML document back as TOML (inline tables and arrays only), since the
standard library reads TOML but does not write it. Test code only.
"""

from __future__ import annotations

import copy
import datetime as dt
import functools
import math
import operator
from typing import Any

from hypothesis import strategies as st

Doc = Any
Where = tuple[str | int, ...]
"""A place in a document: the keys and indices from the top."""

SPECIAL_STRINGS = (
    "",
    " ",
    "\n",
    "a\nb",
    "line\r\nbreak",
    "\t",
    "\x00",
    "\x1b[31m",
    "é",
    "日本語",
    "🙂",
    "\u202eRTL",
    "\ufeff",
    "null",
    "NaN",
    "Infinity",
    "1e999",
    "-0",
    "10",
    "ten",
    "true",
    "mm",
    "cm",
    "in",
    "m",
    "CM",
    "inches",
    "umpire-scene/1",
    "umpire-camera/1",
    "skirmish-19c",
    "tag36h11",
    "DICT_4X4_50",
    "woods",
    "rifles",
    "rifles-1",
    "x" * 300,
)
"""Strings that mean something elsewhere in the formats, or that break messages."""

SPECIAL_NUMBERS: tuple[int | float, ...] = (
    0,
    -1,
    1,
    2**31,
    2**63,
    -(2**63) - 1,
    10**30,
    10**400,
    0.0,
    -0.0,
    5e-324,
    1e-300,
    1e-9,
    0.5,
    -2.5,
    359.9999999999999,
    360.0,
    -1e-20,
    1e15,
    1e300,
    -1e300,
    1.7976931348623157e308,
)
"""Edges of the number line: overflow to float, subnormals, angles just below a full turn."""

NON_FINITE = (math.nan, math.inf, -math.inf)

SCALE_FACTORS = (-1.0, 0.0, 1e-12, 1 / 25.4, 25.4, 1e6, 1e300)
"""Factors that turn a sensible number into a wrong-unit, negative, zero or vast one."""


def text_values(*, surrogates: bool) -> st.SearchStrategy[str]:
    """Short strings of any characters (lone surrogates only where the format can carry them),
    and the special strings."""
    if not surrogates:
        return st.one_of(
            st.text(st.characters(codec="utf-8"), max_size=12), st.sampled_from(SPECIAL_STRINGS)
        )
    # st.characters() leaves out lone surrogates, which JSON's \ud800 escapes can carry
    lone = st.sampled_from(("\ud800", "a\udfffb", "\udc80\ud800"))
    return st.one_of(st.text(max_size=12), st.sampled_from(SPECIAL_STRINGS), lone)


def scalars(*, null: bool, non_finite: bool, dates: bool, surrogates: bool) -> st.SearchStrategy:
    """Single values of every type the format has."""
    options: list[st.SearchStrategy[Any]] = [
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.sampled_from(SPECIAL_NUMBERS),
        st.sampled_from(SPECIAL_NUMBERS),  # twice: the edges find more than random numbers
        st.floats(allow_nan=False, allow_infinity=False),
        text_values(surrogates=surrogates),
    ]
    if null:
        options.append(st.none())
    if non_finite:
        options.append(st.sampled_from(NON_FINITE))
    if dates:
        options.append(
            st.one_of(
                st.dates(),
                st.times(),
                st.datetimes(),
                st.datetimes(timezones=st.just(dt.UTC)),
            )
        )
    return st.one_of(*options)


class Nested(list[Any]):
    """A list nested `depth` deep that hypothesis shows briefly: printing it in full for a
    failing example would itself exhaust the recursion limit. Its `repr` stays a list's, so a
    loader that quotes it whole still fails as it would on a real file."""

    depth: int = 0

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(f"nested({self.depth})")


def nested(depth: int, leaf: Any = 1) -> Nested:
    """`leaf` inside `depth` lists: [[[...[1]...]]], built without recursion."""
    value = leaf
    for _ in range(depth - 1):
        value = [value]
    out = Nested([value])
    out.depth = depth
    return out


def values(
    *,
    null: bool,
    non_finite: bool,
    dates: bool = False,
    surrogates: bool = True,
    max_depth: int = 3000,
) -> st.SearchStrategy:
    """Any value of the format: scalars, small nested lists and objects, and deep nesting."""
    leaf = scalars(null=null, non_finite=non_finite, dates=dates, surrogates=surrogates)
    small = st.recursive(
        leaf,
        lambda inner: st.one_of(
            st.lists(inner, max_size=4),
            st.dictionaries(text_values(surrogates=surrogates), inner, max_size=3),
        ),
        max_leaves=6,
    )
    depths = [d for d in (2, 3, 40, 200, 900, 3000) if d <= max_depth]
    deep = st.sampled_from(depths).map(nested)
    return st.one_of(small, small, small, deep)


def places(doc: Doc, max_depth: int = 8) -> list[Where]:
    """Every member of every object and list in `doc` down to `max_depth` levels (the formats
    nest 6 deep; below that lies only fuzz), parents before children."""
    out: list[Where] = []
    stack: list[tuple[Any, Where]] = [(doc, ())]
    while stack:
        value, where = stack.pop()
        if len(where) >= max_depth:
            continue
        if isinstance(value, dict):
            members: list[tuple[str | int, Any]] = list(value.items())
        elif isinstance(value, list):
            members = list(enumerate(value))
        else:
            continue
        for key, member in members:
            out.append((*where, key))
            stack.append((member, (*where, key)))
    return out


def _copy(value: Any) -> Any:
    """A deep copy, or the value itself when it is nested too deeply to copy (sharing it is
    still a valid document)."""
    try:
        return copy.deepcopy(value)
    except RecursionError:
        return value


def _parent(doc: Doc, where: Where) -> Any:
    for key in where[:-1]:
        doc = doc[key]
    return doc


OPERATIONS = ("delete", "replace", "replace", "replace", "duplicate", "wrap", "rename", "scale")


@st.composite
def mutated(
    draw: st.DrawFn,
    doc: Doc,
    value_strategy: st.SearchStrategy,
    key_strategy: st.SearchStrategy[str],
    max_mutations: int = 3,
) -> Doc:
    """A deep copy of `doc` with 1 to `max_mutations` mutations at random places."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, max_mutations))):
        where_all = places(doc)
        if not where_all:
            break
        where = draw(st.sampled_from(where_all))
        parent, key = _parent(doc, where), where[-1]
        operation = draw(st.sampled_from(OPERATIONS))
        if operation == "delete":
            del parent[key]
        elif operation == "replace":
            parent[key] = draw(value_strategy)
        elif operation == "duplicate":
            if isinstance(parent, list):
                index = int(key)
                parent.insert(index, _copy(parent[index]))
            else:
                parent[draw(key_strategy)] = _copy(parent[key])
        elif operation == "wrap":
            inner = parent[key]
            parent[key] = draw(st.sampled_from(([inner], {"value": inner}, [inner, inner])))
        elif operation == "rename" and isinstance(parent, dict):
            parent[draw(key_strategy)] = parent.pop(key)
        elif operation == "scale":
            number = parent[key]
            if isinstance(number, int | float) and not isinstance(number, bool):
                try:
                    parent[key] = number * draw(st.sampled_from(SCALE_FACTORS))
                except OverflowError:
                    parent[key] = math.inf
            else:
                parent[key] = draw(value_strategy)
    return doc


# --------------------------------------------------------------------------------------------
# Byte-level damage

BOM = b"\xef\xbb\xbf"
INVALID_UTF8 = (b"\xff", b"\xc3", b"\xc3(", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe2\x82")
NOISE = (b"\x00", b"\n", b"\r", b"{", b"}", b"[", b"]", b'"', b",", b":", b"=", b"'", b"#", b"\\")


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` with one to three byte-level mutations (or, sometimes, random bytes instead)."""
    if draw(st.integers(0, 15)) == 0:
        return draw(st.binary(max_size=200))
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(data)))
        operation = draw(
            st.sampled_from(("truncate", "cut", "insert", "flip", "bom", "invalid", "deep"))
        )
        if operation == "truncate":
            data = data[:at]
        elif operation == "cut":
            data = data[:at] + data[at + draw(st.integers(1, 40)) :]
        elif operation == "insert":
            piece = draw(st.one_of(st.sampled_from(NOISE), st.binary(min_size=1, max_size=8)))
            data = data[:at] + piece + data[at:]
        elif operation == "flip" and at < len(data):
            data = data[:at] + bytes([data[at] ^ (1 << draw(st.integers(0, 7)))]) + data[at + 1 :]
        elif operation == "bom":
            data = BOM + data
        elif operation == "invalid":
            data = data[:at] + draw(st.sampled_from(INVALID_UTF8)) + data[at:]
        elif operation == "deep":
            opener = draw(st.sampled_from((b"[", b"{", b'{"a":', b"a = [", b"[[")))
            data = data[:at] + opener * draw(st.sampled_from((500, 5000, 50000))) + data[at:]
    return data


# --------------------------------------------------------------------------------------------
# Writing TOML


def toml_key(key: str) -> str:
    """A key as a TOML basic string (always quoted, so any text is a valid key)."""
    return toml_string(key)


def toml_string(text: str) -> str:
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def toml_value(value: Any) -> str:
    """One TOML value, inline (arrays and inline tables on one line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"no TOML for {value!r}")


def to_toml(doc: dict[str, Any]) -> str:
    """A whole document: one `key = value` line per top-level key."""
    return "".join(f"{toml_key(k)} = {toml_value(v)}\n" for k, v in doc.items())


@st.composite
def renumbered(draw: st.DrawFn, doc: Doc, max_changes: int = 4) -> Doc:
    """A deep copy of `doc` with 1 to `max_changes` of its numbers changed to other numbers
    (edges of the number line, any float, a wrong-unit scale): mostly still a valid document,
    so the values a loader lets through get checked, not just its refusals."""
    doc = copy.deepcopy(doc)
    numeric = [
        where
        for where in places(doc)
        if isinstance(_parent(doc, where)[where[-1]], int | float)
        and not isinstance(_parent(doc, where)[where[-1]], bool)
    ]
    for _ in range(draw(st.integers(1, max_changes))):
        where = draw(st.sampled_from(numeric))
        parent, key = _parent(doc, where), where[-1]
        old: float = parent[key]
        parent[key] = draw(
            st.one_of(
                st.sampled_from(SPECIAL_NUMBERS),
                st.floats(allow_nan=False, allow_infinity=False, width=32),
                st.sampled_from(SCALE_FACTORS).map(functools.partial(operator.mul, old)),
            )
        )
    return doc
