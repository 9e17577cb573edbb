"""Every number in the engine traces back to a line of a sheet: every `Cite` reachable from a
ruleset module quotes text that really stands on the line it names. The guide's ruleset
(tests/guide_ruleset.py, its sheet in tests/data/) is held to the same test."""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import rules.rulesets
from rules.engine import Cite, get_ruleset, ruleset_ids

SHEETS = Path(rules.__file__).parent / "sheets"
GUIDE_SHEETS = Path(__file__).parent / "data"


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _walk(value: Any, seen: set[int]) -> Iterator[Cite]:
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, Cite):
        yield value
    elif isinstance(value, Mapping):
        for k, v in value.items():
            yield from _walk(k, seen)
            yield from _walk(v, seen)
    elif isinstance(value, list | tuple | set | frozenset):
        for v in value:
            yield from _walk(v, seen)
    elif hasattr(value, "__dataclass_fields__") and not isinstance(value, type):
        for name in value.__dataclass_fields__:
            yield from _walk(getattr(value, name), seen)


def _ruleset_modules() -> list[tuple[ModuleType, Path]]:
    """Every ruleset module, with the folder its sheet is in."""
    # A ruleset is a module or a package of modules (its mechanics, its tables read from data).
    shipped = [
        (importlib.import_module(m.name), SHEETS)
        for m in pkgutil.walk_packages(rules.rulesets.__path__, "rules.rulesets.")
    ]
    return [*shipped, (importlib.import_module("tests.guide_ruleset"), GUIDE_SHEETS)]


def all_cites() -> list[tuple[str, Path, Cite]]:
    out: list[tuple[str, Path, Cite]] = []
    seen: set[int] = set()
    for module, sheets in _ruleset_modules():
        for name, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == module.__name__:
                for attr, v in vars(value).items():
                    where = f"{module.__name__}.{name}.{attr}"
                    out += [(where, sheets, c) for c in _walk(v, seen)]
            else:
                out += [(f"{module.__name__}.{name}", sheets, c) for c in _walk(value, seen)]
    return out


def test_the_rulesets_cite_their_sheets() -> None:
    assert len(all_cites()) >= 5


def test_the_guides_ruleset_cites_its_sheet() -> None:
    assert sum(sheets == GUIDE_SHEETS for _, sheets, _ in all_cites()) >= 5


@pytest.mark.parametrize(("where", "sheets", "cite"), all_cites(), ids=lambda v: str(v)[:60])
def test_cited_text_stands_on_the_cited_line(where: str, sheets: Path, cite: Cite) -> None:
    path = sheets / cite.sheet
    assert path.is_file(), f"{where}: no sheet {cite.sheet}"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert 1 <= cite.line <= len(lines), f"{where}: {cite} is past the end of the sheet"
    assert cite.text, f"{where}: {cite} quotes nothing"
    assert _norm(cite.text) in _norm(lines[cite.line - 1]), (
        f"{where}: {cite} says {cite.text!r} but the line reads {lines[cite.line - 1]!r}"
    )


def test_every_ruleset_names_a_sheet_that_is_shipped() -> None:
    for ident in ruleset_ids():
        assert (SHEETS / get_ruleset(ident).sheet).is_file()


def test_shipped_sheets_match_the_index() -> None:
    index = (SHEETS / "README.md").read_text(encoding="utf-8")
    for ident in ruleset_ids():
        rs = get_ruleset(ident)
        row = next(line for line in index.splitlines() if f"`{ident}`" in line)
        assert rs.sheet in row
