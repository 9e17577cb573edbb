"""The errors of the rules package: all `ValueError`s that quote the bad input.

The command line turns any `UmpireError` into one line on stderr and exit status 2.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Iterable


class UmpireError(ValueError):
    """Base class of every error caused by bad input (a file, an id, a question)."""


class DocumentError(UmpireError):
    """A bad value in a file: the message names the file, the path inside it
    (`units[2].bases[0].x`) and what is accepted."""

    def __init__(self, source: str, path: str, message: str) -> None:
        where = f"{source}: {path}" if path else source
        super().__init__(f"{where}: {message}")
        self.path = path
        self.detail = message


class SceneError(DocumentError):
    """A scene file that does not follow `umpire-scene/1`."""


class UnknownIdError(UmpireError):
    """An id that names no unit, base or terrain piece of the scene."""

    def __init__(self, ident: str, known: Iterable[str], what: str = "unit or base") -> None:
        known = sorted(known)
        shown = ", ".join(repr(k) for k in known[:12]) + (", ..." if len(known) > 12 else "")
        super().__init__(f"no {what} with id {ident!r} in the scene; ids are: {shown}")


class UnknownRulesetError(UmpireError):
    """A ruleset id that is not registered."""

    def __init__(self, ident: object, known: Iterable[str]) -> None:
        super().__init__(f"unknown ruleset {ident!r}: known rulesets are {', '.join(known)}")


class QuestionError(UmpireError):
    """A question the scene or the sheet cannot answer (a missing attribute, a wrong pairing)."""


class MissingAttribute(QuestionError):
    """A unit attribute a rule reads that the scene does not give. The engine carries on with a
    placeholder to find every other missing attribute of the question, and reports them all
    in one message."""

    def __init__(
        self, ruleset: str, unit: str, key: str, accepted_values: str, placeholder: object
    ) -> None:
        super().__init__(f"{ruleset}: unit {unit!r} has no {key!r}; give {accepted_values}")
        self.unit = unit
        self.key = key
        self.accepted_values = accepted_values
        self.placeholder = placeholder


def accepted(values: Iterable[object]) -> str:
    """The accepted values of a closed set, for messages: `'a', 'b' or 'c'`."""
    quoted = [repr(v) for v in values]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def close_key(key: str, known: Iterable[str]) -> str | None:
    """The known key that `key` is plainly a typo of (`heavy_armor` for `heavy_armour`,
    `facng` for `facing`), or None when it is not close to any (`name`, `notes`).

    Remembered for the last few thousand questions: a live scene asks it of every base's
    extra keys (`tag`, `stale`) on every frame, and the fuzzy match is the dearest part of
    reading a scene."""
    if not isinstance(key, str):
        return None
    return _close_key(key, tuple(known))


@functools.lru_cache(maxsize=4096)
def _close_key(key: str, known_keys: tuple[str, ...]) -> str | None:
    known = [k for k in known_keys if k != key]
    norm = key.lower().replace("-", "_")
    for k in known:
        if k.lower().replace("-", "_") == norm:
            return k
    found = difflib.get_close_matches(key, known, n=5, cutoff=0.8)
    if not found:
        return None
    # The fewest edits wins; between equals, a key of the same length (a mistyped letter
    # rather than a missing one: `unitz` is `units`, not `unit`).
    return min(found, key=lambda k: (_edits(key, k), len(k) != len(key)))


def _edits(a: str, b: str) -> int:
    """Letters to insert, delete, change or swap to turn `a` into `b`."""
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            row.append(min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb)))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
