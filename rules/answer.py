"""What an answer is made of: the values every ruleset's resolutions are built from.

A `Resolution` is the answer to one question: its JSON data (lengths through `length_json`, in
the scene's unit) and its readable lines. Inside it: `Threshold`s (a measured length against a
rule's limit, with its uncertainty), `Roll`s (dice, the number needed, exact odds) with their
`Modifier`s, `RangeBand`s, `Suggestion`s (one resolution a phase of play asks for), and a `Cite`
on every number, naming the line of the sheet it comes from. Frozen values; pure: never imports
numpy, a ruleset, cv2 or flask.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache, partial
from math import gcd
from types import MappingProxyType
from typing import Any, TypeAlias

from calibration.units import MM_PER_UNIT, check_unit

from . import dice as dice_math
from .geometry import within
from .scene import Scene


@dataclass(frozen=True, slots=True)
class Cite:
    """Where a number comes from: a line of a rule sheet in `rules/sheets/`."""

    sheet: str
    """The sheet's file name."""
    line: int
    """1-based line number in that file."""
    text: str = ""
    """A short quotation, for players."""

    def __str__(self) -> str:
        return f"{self.sheet}:{self.line}"


Lines: TypeAlias = Iterable[str] | Callable[[], Iterable[str]]
"""An answer's readable lines, one sentence a line: said already, or a function that says them
when they are read (`Resolution.lines`)."""


@dataclass(frozen=True, slots=True)
class Resolution:
    """The answer to one question: JSON-ready data plus a readable explanation, said when read.

    The lines are said only when somebody reads them (`lines`): `suggest` lists hundreds of
    answers by one line each (`summary`) and never reads the rest. So the data, nested values
    included, is never changed once answered: the lines say what it held. Two answers are
    equal when their action, data and summary are."""

    action: str
    data: Mapping[str, Any]
    """The `--json` output: the contract's keys, lengths in the scene's unit."""
    say: Callable[[], Iterable[str]] = field(compare=False, repr=False)
    """Says the readable explanation, one sentence a line, each time `lines` is read (pure)."""
    summary: str | None = None
    """What the answer comes to in one line, when the action gives it apart from the lines
    (`suggest` lists it); else the first line says it."""

    @property
    def lines(self) -> tuple[str, ...]:
        """The readable explanation, one sentence a line."""
        return tuple(self.say())

    def as_json(self) -> dict[str, Any]:
        """The data as a plain dict for `json.dumps`."""
        return dict(self.data)

    @classmethod
    def of(
        cls, action: str, data: dict[str, Any], lines: Lines, summary: str | None = None
    ) -> Resolution:
        """The answer an action built up: its data (read-only from now on), its lines and the
        summary it gives apart from them."""
        say = lines if callable(lines) else partial(iter, tuple(lines))  # said already
        return cls(action, MappingProxyType(data), say, summary)


@dataclass(frozen=True, slots=True)
class Threshold:
    """A measured length compared with a rule's threshold, with its measurement uncertainty."""

    measured: float
    """mm"""
    limit: float
    """mm"""
    uncertainty: float
    """mm: the combined position uncertainty of the two ends."""

    @property
    def margin(self) -> float:
        """How far inside (positive) or outside (negative) the limit the measurement is, mm."""
        return self.limit - self.measured

    @property
    def too_close_to_call(self) -> bool:
        """The margin is inside the measurement's uncertainty."""
        return abs(self.margin) <= self.uncertainty

    @property
    def within(self) -> bool:
        """The measurement is within (at most) the limit (`geometry.within`)."""
        return within(self.measured, self.limit)

    @property
    def beyond(self) -> bool:
        """Clearly beyond the limit: neither within it nor too close to call (not in base
        contact, out of a reach, even allowing for the uncertainty)."""
        return not (self.within or self.too_close_to_call)


@dataclass(frozen=True, slots=True)
class Modifier:
    """One modifier the sheet applies, with its reason and source."""

    value: float
    """Added to the die, the need, the dice count or the factor (the roll says which)."""
    reason: str
    cite: Cite | None = None

    def as_json(self) -> dict[str, Any]:
        return {"value": self.value, **reason_json(self.reason, self.cite)}


@dataclass(frozen=True, slots=True)
class Roll:
    """Dice to throw for one purpose, the lowest face that succeeds and the exact odds."""

    purpose: str
    """What the roll decides: `to hit`, `damage`, `save`, `nerve`, ..."""
    dice: int
    sides: int
    need: int | None
    """The lowest face that succeeds; None when the faces index a table (damage, actions)."""
    distribution: tuple[Fraction, ...] = ()
    """P(k successes) for k = 0..dice (empty when `need` is None)."""
    modifiers: tuple[Modifier, ...] = ()
    cite: Cite | None = None
    note: str = ""

    @property
    def p_success(self) -> Fraction | None:
        """Chance one die succeeds."""
        return None if self.need is None else dice_math.p_at_least(self.sides, self.need)

    @classmethod
    def success_roll(
        cls,
        purpose: str,
        dice: int,
        sides: int,
        need: int,
        modifiers: Sequence[Modifier] = (),
        cite: Cite | None = None,
        note: str = "",
    ) -> Roll:
        """A roll of `dice` dice needing `need`+, with its distribution of successes."""
        chances = dice_math.successes(dice, sides, need)
        return cls(purpose, dice, sides, need, chances, tuple(modifiers), cite, note)

    def as_json(self) -> dict[str, Any]:
        p = self.p_success
        return {
            "purpose": self.purpose,
            "dice": self.dice,
            "sides": self.sides,
            "need": self.need,
            "p_success": None if p is None else float(p),
            "p_success_exact": None if p is None else str(p),
            "distribution": dice_math.as_floats(self.distribution),
            "modifiers": [m.as_json() for m in self.modifiers],
            "source": None if self.cite is None else str(self.cite),
            "note": self.note,
        }

    def describe(self) -> str:
        """`3D8 to hit, 4+ each (5/8 a die)`, for the readable answer."""
        note = f" ({self.note})" if self.note else ""
        if self.need is None:
            return f"{self.dice}D{self.sides} for {self.purpose}{note}"
        p = dice_math.p_at_least(self.sides, self.need)
        odds = "cannot succeed" if p == 0 else f"{self.need}+ each, {p} a die"
        return f"{self.dice}D{self.sides} {self.purpose}: {odds}{note}"


def threshold_json(scene: Scene, t: Threshold) -> dict[str, Any]:
    """A length compared with a limit, for JSON, with the `too close to call` verdict."""
    # `Threshold.margin`, `too_close_to_call` and `within`, worked out once (asked thousands
    # of times a `suggest`).
    measured, limit, uncertainty = t.measured, t.limit, t.uncertainty
    margin = limit - measured
    close = abs(margin) <= uncertainty
    verdict = "too close to call" if close else "within" if within(measured, limit) else "beyond"
    return {
        "measured": length_json(scene, measured),
        "limit": length_json(scene, limit),
        "margin": length_json(scene, margin),
        "uncertainty": length_json(scene, uncertainty),
        "verdict": verdict,
    }


def reason_json(text: str, cite: Cite | None) -> dict[str, Any]:
    """A reason in an answer (why a rule applies, or why a question is refused), with the line
    of the sheet it comes from: `{"reason": ..., "source": "sheet.txt:12" or None}`."""
    return {"reason": text, "source": None if cite is None else str(cite)}


def plural(n: int, word: str, many: str = "s") -> str:
    """`1 hit`, `2 hits`: a count and its word, with the ending `many` when not 1."""
    return f"{n} {word}{many * (n != 1)}"


def chance_json(count: int, whole: int) -> dict[str, Any]:
    """The probability count / whole for JSON: `{"value": float, "exact": "p/q"}`, as
    `fraction_json` gives it, without making a `Fraction` (cheap enough for thousands an answer)."""
    g = gcd(count, whole)
    p, q = count // g, whole // g
    return {"value": p / q, "exact": str(p) if q == 1 else f"{p}/{q}"}


def fraction_json(p: Fraction) -> dict[str, Any]:
    """A probability for JSON: `{"value": float, "exact": "p/q"}`."""
    return {"value": p.numerator / p.denominator, "exact": str(p)}


def chances_json(counts: Sequence[int], whole: int) -> list[dict[str, Any]]:
    """A distribution counted in whole numbers of 1 / `whole` (`counts[k]` the ways of k), for
    JSON: each k that may happen, with its chance (`chance_json`)."""
    return [{"k": k, **chance_json(n, whole)} for k, n in enumerate(counts) if n]


@dataclass(frozen=True, slots=True)
class RangeBand:
    """How far one range band of a unit's weapon reaches, edge to edge."""

    label: str
    """The sheet's name for the band (`short`, `0-9`, `canister`...)."""
    reach: float
    """mm"""
    cite: Cite | None = None


def length_json(scene: Scene, value_mm: float) -> dict[str, Any]:
    """A length for JSON: `{"value": ..., "unit": ...}` in the scene's unit, to 3 decimals."""
    value, unit = float(value_mm), scene.unit
    # Zero (0.0 or -0.0) is itself in every unit, and the memo would not tell the two apart.
    return {"value": _in_unit(value, unit) if value else value, "unit": unit}


@lru_cache(maxsize=8192)
def _in_unit(value_mm: float, unit: str) -> float:
    """A length in `unit`, to 3 decimals, remembered: a `suggest` answer holds thousands of
    lengths, many the same (rounding to decimals costs more than looking the answer up)."""
    return round(value_mm / MM_PER_UNIT[check_unit(unit)], 3)


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One resolution a phase of play asks for: the question, its answer's data and summary."""

    kind: str
    """The action (`shoot`, `move`...)."""
    args: tuple[str, ...]
    result: Mapping[str, Any]
    """The answer's data. Its lines are not kept: the list shows the summary, and an answer
    kept till the whole list is made would keep all it needs to say them."""
    summary: str
    """One line for the list (`Ruleset.summarise`)."""
    phase: str | None = None
    """The phase that asks it; None when every phase asks it."""

    def as_json(self, with_phase: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "args": list(self.args)}
        if with_phase:
            out["phase"] = self.phase
        out["summary"] = self.summary
        out["result"] = dict(self.result)
        return out
