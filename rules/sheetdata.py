"""A ruleset's sheet data: the tables of its sheet, read from a TOML file beside its mechanics,
every number with the line of the sheet it comes from.

In the file a citation is a table with exactly the keys `line` and `quote`:

```toml
[[to_hit]]
band = "short"
open = 2
cite = { line = 41, quote = "Short Range	2	4	6" }
```

`load_sheet_data(path, sheet)` reads the file and turns every such table into a `Cite` of the
ruleset's sheet, so the data reads like the sheet and `tests/test_citations.py` checks each quote
against its line like any other. Everything else comes back as TOML gives it (tables as dicts,
arrays as lists). `load_sheet(path, sheet, ruleset)` gives the same tables as a `Sheet`, with
what every ruleset makes of them: its `Field`s and `Phase`s, its texts filled in, its refusals.
Pure: tomllib only; never imports numpy or anything outside `rules`.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .answer import Cite
from .errors import MissingAttribute, QuestionError, UmpireError, accepted
from .state import Field, Kind, Phase

if TYPE_CHECKING:
    from .scene import Unit

CITE_KEYS = frozenset({"line", "quote"})
MISSING_SAYS = {
    Kind.FLAG: ("true or false", False),
    Kind.COUNT: ("a whole number from 0", 0),
    Kind.TEXT: ("a text", ""),
}
"""What a missing flag, count or text accepts, and the value a scene may write for it."""


class SheetDataError(UmpireError):
    """A ruleset's data file that cannot be read (a packaging fault, not a player's input)."""


def load_sheet_data(path: str | Path, sheet: str) -> dict[str, Any]:
    """The tables of `path`, every `{line, quote}` table a `Cite` of `sheet`."""
    source = Path(path)
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SheetDataError(f"sheet data {source}: cannot be read ({error})") from None
    return {key: _cited(value, sheet, source.name) for key, value in data.items()}


def _cited(value: Any, sheet: str, where: str) -> Any:
    if isinstance(value, dict):
        if set(value) == CITE_KEYS:
            line, quote = value["line"], value["quote"]
            if not isinstance(line, int) or not isinstance(quote, str) or not quote:
                raise SheetDataError(f"sheet data {where}: a cite needs a line number and a quote")
            return Cite(sheet, line, quote)
        return {k: _cited(v, sheet, where) for k, v in value.items()}
    if isinstance(value, list):
        return [_cited(v, sheet, where) for v in value]
    return value


@dataclass(frozen=True)
class Sheet:
    """A ruleset's sheet data as `load_sheet` reads it: its tables by name (`sheet["move"]`), and
    what every ruleset makes of them, written once here: its unit fields, its sequence of play,
    its texts with their blanks filled in and its refusals.

    The tables it reads, when the ruleset has them: `[[fields]]` (a `Field` a row; a row's
    `words` names lists of `[words]` whose words the field accepts too), `[[phases]]` (`name`,
    `title`, `acting` when not every side acts, `cite`), `[texts]` and `[refusals]`."""

    tables: Mapping[str, Any]
    ruleset: str
    """The ruleset's id: the `{id}` of a refusal."""
    sheet: str
    """The sheet's file name (`Ruleset.sheet`)."""
    names: Mapping[str, Any]
    """What every text and refusal may name besides its own blanks (`cite`, for `{cite[arc]}`)."""
    fields: tuple[Field, ...]
    """The unit attributes the rules read (`Ruleset.unit_fields`)."""
    phases: tuple[Phase, ...]
    """The sheet's sequence of play (`Ruleset.phase_steps`)."""
    field: Mapping[str, Field]
    """The `fields` by name."""

    def __getitem__(self, key: str) -> Any:
        return self.tables[key]

    def read(self, unit: Unit, name: str, choices: Sequence[str] = ()) -> Any:
        """The value of the declared field `name` of `unit`: a flag as a bool, a count as an
        int, a choice as one of the field's words (or of `choices`, when a rule accepts fewer).

        A missing value is a `MissingAttribute` (the engine gathers every missing attribute of
        a question into one message); a word outside the accepted ones is a `QuestionError`
        naming the unit, the field and the accepted words."""
        value, field = unit.attrs.get(name), self.field[name]
        if choices and field.kind is not Kind.CHOICE:
            raise ValueError(f"{name} is a {field.kind} field: only a choice takes fewer words")
        words = choices or field.choices
        if value is None:
            says = MISSING_SAYS.get(field.kind) or (f"one of {accepted(words)}", (*words, "")[0])
            raise MissingAttribute(self.ruleset, unit.id, name, *says)
        if field.kind is Kind.FLAG:
            return bool(value)
        if field.kind is Kind.COUNT:
            return int(value)
        if field.kind is Kind.CHOICE and value not in words:
            raise QuestionError(
                f"{self.ruleset}: unit {unit.id!r} has {name} {value!r}; accepted values are "
                f"{accepted(words)}"
            )
        return value

    def say(self, name: str, /, **blanks: Any) -> str:
        """The text `name`, its `{blanks}` filled in (and the sheet's `names`)."""
        return str(self.tables["texts"][name]).format_map({**self.names, **blanks})

    def lines(self, name: str, /, **blanks: Any) -> list[str]:
        """The text `name` filled in, a line of an answer each of its lines."""
        return self.say(name, **blanks).split("\n")

    def refusal(self, key: str, /, **blanks: Any) -> QuestionError:
        """A question the sheet refuses, in the words of `[refusals]`, its blanks filled in."""
        words = self.tables["refusals"][key]
        return QuestionError(words.format_map({"id": self.ruleset, **self.names, **blanks}))

    def enemies(self, a: Unit, b: Unit, /, **blanks: Any) -> tuple[Unit, Unit]:
        """Two units a question pairs as enemies, else the refusal `same-unit` (when the sheet
        words one) or `same-side`; their blanks: `a` and `b` (the units' ids unless `blanks`
        give others), `side` (a's) and `blanks`."""
        if a.side != b.side:  # so two units
            return a, b
        same_unit = a.id == b.id and "same-unit" in self.tables["refusals"]
        said = {"a": a.id, "b": b.id, "side": a.side, **blanks}
        raise self.refusal("same-unit" if same_unit else "same-side", **said)


def load_sheet(path: str | Path, sheet: str, ruleset: str, *, names: Sequence[str] = ()) -> Sheet:
    """The sheet data of `path` (`load_sheet_data`) for the ruleset `ruleset`; `names`: the
    tables every text and refusal may name (`cite`, for `{cite[arc]}`)."""
    data = load_sheet_data(path, sheet)
    words, where = data.get("words", {}), Path(path).name
    rows = enumerate(data.get("fields", ()))
    unit_fields = tuple(_field(row, words, f"{where} [[fields]] row {k + 1}") for k, row in rows)
    rows = enumerate(data.get("phases", ()))
    phases = tuple(
        Phase(**_keys(Phase, {"acting": "all", **row}, f"{where} [[phases]] row {k + 1}"))
        for k, row in rows
    )
    named = MappingProxyType({name: data[name] for name in names})
    by_name = MappingProxyType({f.name: f for f in unit_fields})
    return Sheet(MappingProxyType(data), ruleset, sheet, named, unit_fields, phases, by_name)


def _keys(
    kind: type, row: Mapping[str, Any], where: str, extra: frozenset[str] = frozenset()
) -> Mapping[str, Any]:
    """`row` (a `[[table]]` row) when it gives every key the dataclass `kind` needs and no key
    but its fields and `extra`; else `SheetDataError` naming the row and the keys it takes."""
    takes = {f.name for f in fields(kind)} | extra
    needs = [f.name for f in fields(kind) if f.default is MISSING and f.default_factory is MISSING]
    unknown, missing = sorted(set(row) - takes), [k for k in needs if k not in row]
    if unknown or missing:
        wrong = f"unknown key {unknown[0]!r}" if unknown else f"missing key {missing[0]!r}"
        raise SheetDataError(
            f"sheet data {where}: {wrong}; its keys are {', '.join(sorted(takes))}"
        )
    return row


def _field(row: Mapping[str, Any], words: Mapping[str, Sequence[str]], where: str) -> Field:
    """A `[[fields]]` row as a `Field`: its choices, and the words of the lists it names."""
    _keys(Field, row, where, frozenset({"words"}))
    given = {k: v for k, v in row.items() if k not in ("kind", "choices", "words")}
    choices = (*row.get("choices", ()), *(w for name in row.get("words", ()) for w in words[name]))
    return Field(**given, kind=Kind(row["kind"]), choices=choices)
