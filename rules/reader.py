"""Typed access to a decoded document (a scene's JSON, a game's TOML) that reports the path of
every bad value: `units[2].bases[0].x: expected a number, got the string 'ten'`.

One reader serves every file format; a format names its own containers (`object` / `list` in
JSON, `table` / `array` in TOML) and its own error class, and `read_text_file` reads either
kind of file. Pure Python; never imports numpy or anything outside `rules`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from .errors import DocumentError, accepted, close_key

Point = tuple[float, float]

MIN_SIZE_MM: Final = 0.1
"""The smallest size (a length that must be greater than 0) a file may give: nothing on a
wargames table is thinner than a tenth of a millimetre, and a vanishing size (5e-324) turns the
geometry of a footprint into NaN."""
MAX_LENGTH_MM: Final = 1e6
"""The longest length a file may give, 1 km: a table is a few metres, so anything longer is a
typo or the wrong `unit`; refusing it keeps every distance, square and area the rules compute
finite (1e300 is a finite number, but its square is not)."""

MAX_BASES: Final = 2000
"""The most bases a scene or a game file may hold: a big game is a few hundred, the largest the
examples and benchmarks load 120. Every question measures all pairs, so 150,000 bases would ask
for tens of GiB; 2,000 stay within a few hundred MB."""
MAX_TERRAIN_POINTS: Final = 20_000
"""The most corners all the terrain polygons of a scene or game file may have together."""
MAX_SCENE_BYTES: Final = 16 * 1024 * 1024
"""The largest scene file read (a scene of 2,000 bases is under 2 MB)."""
MAX_GAME_BYTES: Final = 4 * 1024 * 1024
"""The largest game file read (a game file of 2,000 bases is under 1 MB)."""


def _entries(items: Any, key: str) -> int:
    """How many entries the `key` lists of the objects in the list `items` hold together."""
    if not isinstance(items, list):
        return 0
    lists = (item.get(key) for item in items if isinstance(item, dict))
    return sum(len(found) for found in lists if isinstance(found, list))


_SURROGATE: Final = re.compile("[\ud800-\udfff]")
"""A surrogate code point: in a decoded text always a lone one (JSON joins a pair into one
character), which UTF-8 cannot encode."""


def surrogate_path(value: Any, path: str = "", depth: int = 0) -> str | None:
    """The path of the first text (key or value) in a decoded JSON document holding a lone
    surrogate (`"\\ud800"`: JSON accepts it, but it is no Unicode text and cannot be printed
    or saved as UTF-8); None when there is none."""
    if isinstance(value, str):
        return (path or "the document") if _SURROGATE.search(value) else None
    if depth > 200 or not isinstance(value, dict | list):
        return None
    for key, item in value.items() if isinstance(value, dict) else enumerate(value):
        if isinstance(key, str) and _SURROGATE.search(key):
            return path or "the document"
        where = join_path(path, key) if isinstance(key, str) else f"{path}[{key}]"
        found = surrogate_path(item, where, depth + 1)
        if found is not None:
            return found
    return None


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+")


def join_path(path: str, key: str) -> str:
    """The path of `key` inside the value at `path` (`units[0]` + `side` -> `units[0].side`).

    A key that is not a plain word is quoted (`units[0]['a\\nb']`), so that a newline or any
    other odd character in a key cannot break the one-line message that quotes the path."""
    if not _PLAIN_KEY.fullmatch(key):
        return f"{path}[{key!r}]"
    return f"{path}.{key}" if path else key


def read_text_file(
    path: str | Path, fail: Callable[[str], DocumentError], what: str, language: str, limit: int
) -> str:
    """The text of a `what` file (`scene`, `game`) of at most `limit` bytes, UTF-8 with or
    without a BOM (as Windows editors write); every problem reading it is `fail(message)`."""
    try:
        with Path(path).open("rb") as file:
            raw = file.read(limit + 1)
    except FileNotFoundError:
        raise fail("no such file") from None
    except IsADirectoryError:
        raise fail(f"is a folder, not a {what} file") from None
    except OSError as exc:
        raise fail(f"cannot be read ({exc.strerror})") from None
    if len(raw) > limit:
        raise fail(
            f"is larger than {limit // (1024 * 1024)} MiB, more than any {what} file (of at "
            f"most {MAX_BASES} bases); is it the right file?"
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise fail(f"is not UTF-8 text; a {what} file is {language}") from None


@dataclass(frozen=True, slots=True)
class DocumentReader:
    """Checks values of a decoded document; every failure names the path and what is accepted.

    A format gives its error class and its words for a key-value container and a list, with
    their articles (`an object` and `a list` in JSON, `a table` and `an array` in TOML)."""

    source: str
    """The file (or other origin) the messages name."""
    error: type[DocumentError]
    mapping_word: str = "an object"
    sequence_word: str = "a list"

    def fail(self, path: str, message: str) -> DocumentError:
        """The error to raise for a bad value at `path`."""
        return self.error(self.source, path, message)

    def describe(self, value: Any) -> str:
        """A value as the message quotes it: `the string 'ten'`, `a list`, `null`."""
        if value is None:
            return "null"
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, dict):
            return self.mapping_word
        if isinstance(value, list):
            return self.sequence_word
        if isinstance(value, str):
            return f"the string {value!r}" if len(value) <= 40 else "a long string"
        return repr(value)

    def check_size(self, units: Any, terrain: Any) -> None:
        """Fail unless a document's `units` and `terrain` arrays are small enough, counted
        before anything is read from them."""
        bases = _entries(units, "bases")
        if bases > MAX_BASES:
            raise self.fail(
                "", f"too big: {bases} bases; a scene or game holds at most {MAX_BASES}"
            )
        points = _entries(terrain, "polygon")
        if points > MAX_TERRAIN_POINTS:
            raise self.fail(
                "",
                f"too big: {points} terrain polygon corners; the terrain of a scene or game has "
                f"at most {MAX_TERRAIN_POINTS} in all",
            )

    def expect(self, ok: bool, value: Any, path: str, what: str) -> None:
        """Fail at `path` unless `ok`: `expected WHAT, got VALUE`."""
        if not ok:
            raise self.fail(path, f"expected {what}, got {self.describe(value)}")

    def mapping(self, value: Any, path: str) -> dict[str, Any]:
        self.expect(isinstance(value, dict), value, path, f"{self.mapping_word} {{...}}")
        return value

    def key(self, obj: dict[str, Any], key: str, path: str, choices: tuple[str, ...] = ()) -> Any:
        if key not in obj:
            hint = f"; accepted values are {accepted(choices)}" if choices else ""
            if typo := close_key(key, obj):  # `widht` given for `width`
                hint += f"; {typo!r} is given: did you mean {key!r}?"
            raise self.fail(join_path(path, key), f"missing (required){hint}")
        return obj[key]

    def text(self, value: Any, path: str) -> str:
        filled = isinstance(value, str) and bool(value.strip())
        self.expect(filled, value, path, "a non-empty string")
        return value

    def number(
        self, value: Any, path: str, *, positive: bool = False, minimum: float | None = None
    ) -> float:
        number = isinstance(value, int | float) and not isinstance(value, bool)
        self.expect(number, value, path, "a number")
        try:
            # finite in mm too: 1e308 in is a number in the file and infinity inside
            finite = math.isfinite(value) and math.isfinite(float(value) * 25.4)
        except OverflowError:
            finite = False
        if not finite:
            shown = repr(value) if isinstance(value, float) else "a number too large"
            raise self.fail(path, f"expected a finite number of sensible size, got {shown}")
        if positive and value <= 0:
            raise self.fail(path, f"must be greater than 0, got {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(path, f"must be at least {minimum:g}, got {value!r}")
        return float(value)

    def length(
        self,
        value: Any,
        path: str,
        scale: float,
        *,
        positive: bool = False,
        minimum: float | None = None,
    ) -> float:
        """A length in the file's unit (`scale` mm each), returned in mm, at most 1 km long;
        with `positive`, a size of at least 0.1 mm."""
        number = self.number(value, path, positive=positive, minimum=minimum)
        mm = number * scale
        if positive and mm < MIN_SIZE_MM:
            limit = f"a size must be at least {MIN_SIZE_MM:g} mm"
        elif abs(mm) > MAX_LENGTH_MM:
            limit = f"a length must be within 1 km ({MAX_LENGTH_MM:g} mm)"
        else:
            return mm
        raise self.fail(path, f"got {number:g} ({mm:g} mm); {limit}: a typo, or the wrong unit?")

    def angle(self, value: Any, path: str) -> float:
        """Degrees, returned in [0, 360): any number of turns is accepted."""
        degrees = self.number(value, path) % 360.0
        # -1e-20 % 360.0 rounds to 360.0 itself, which is a full turn: 0.
        return 0.0 if degrees >= 360.0 else degrees

    def integer(self, value: Any, path: str, *, minimum: int = 0) -> int:
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        whole = isinstance(value, int) and not isinstance(value, bool)
        self.expect(whole, value, path, "a whole number")
        if value < minimum:
            raise self.fail(path, f"must be at least {minimum}, got {value!r}")
        return int(value)

    def boolean(self, value: Any, path: str) -> bool:
        self.expect(isinstance(value, bool), value, path, "true or false")
        return value

    def choice(self, value: Any, path: str, choices: tuple[str, ...]) -> str:
        if not isinstance(value, str) or value not in choices:
            raise self.fail(
                path, f"got {self.describe(value)}; accepted values are {accepted(choices)}"
            )
        return value

    def array(self, value: Any, path: str) -> list[Any]:
        self.expect(isinstance(value, list), value, path, f"{self.sequence_word} [...]")
        return value

    def point(self, value: Any, path: str, scale: float) -> Point:
        """A point [x, y] in the file's unit, returned in mm."""
        if not isinstance(value, list) or len(value) != 2:
            got = f"{len(value)} numbers" if isinstance(value, list) else self.describe(value)
            raise self.fail(path, f"expected a point [x, y], got {got}")
        x, y = (self.length(v, f"{path}[{i}]", scale) for i, v in enumerate(value))
        return x, y

    def polygon(self, value: Any, path: str, scale: float) -> tuple[Point, ...]:
        """A simple polygon of 3 or more points, in mm (a closed ring's repeated end dropped)."""
        points_doc = self.array(value, path)
        if len(points_doc) < 3:
            raise self.fail(
                path, f"a polygon needs at least 3 points [x, y], got {len(points_doc)}"
            )
        points = [self.point(p, f"{path}[{i}]", scale) for i, p in enumerate(points_doc)]
        if len(points) > 3 and points[0] == points[-1]:
            points.pop()  # a closed ring written GeoJSON-style
        if problem := polygon_problem(points):
            raise self.fail(path, f"not a simple polygon: {problem}")
        return tuple(points)


def polygon_problem(points: list[Point]) -> str | None:
    """Why `points` is not a simple polygon with area, or None if it is one."""
    n = len(points)
    if len(set(points)) != n:
        return "a point is repeated"
    edges = list(zip(points, points[1:] + points[:1], strict=True))
    for i in range(n):
        for j in range(i + 2, n - (i == 0)):  # not edge i itself or the two next to it
            if _segments_cross(*edges[i], *edges[j]):
                return f"edge {i}-{(i + 1) % n} crosses edge {j}-{(j + 1) % n}"
    if abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in edges)) < 1e-9:  # twice the area
        return "its area is zero (all points on one line)"
    return None


def _segments_cross(a: Point, b: Point, c: Point, d: Point) -> bool:
    """Whether the segments ab and cd meet: they cross, or an end of one lies on the other."""

    def orient(p: Point, q: Point, s: Point) -> float:
        return (q[0] - p[0]) * (s[1] - p[1]) - (q[1] - p[1]) * (s[0] - p[0])

    ends = ((c, d, a), (c, d, b), (a, b, c), (a, b, d))
    d1, d2, d3, d4 = sides = [orient(*end) for end in ends]
    if (d1 > 0 > d2 or d1 < 0 < d2) and (d3 > 0 > d4 or d3 < 0 < d4):
        return True
    # An end on the other segment's line touches it when within the box that segment spans.
    return any(
        side == 0 and all(min(p[k], q[k]) <= s[k] <= max(p[k], q[k]) for k in (0, 1))
        for side, (p, q, s) in zip(sides, ends, strict=True)
    )
