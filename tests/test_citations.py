"""Every number in the engine traces back to a line of a sheet: every `Cite` reachable from a
ruleset module quotes text that really stands on the line it names."""

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


def _ruleset_modules() -> list[ModuleType]:
    return [
        importlib.import_module(f"rules.rulesets.{m.name}")
        for m in pkgutil.iter_modules(rules.rulesets.__path__)
    ]


def all_cites() -> list[tuple[str, Cite]]:
    out: list[tuple[str, Cite]] = []
    seen: set[int] = set()
    for module in _ruleset_modules():
        for name, value in vars(module).items():
            if isinstance(value, type) and value.__module__ == module.__name__:
                for attr, v in vars(value).items():
                    out += [(f"{module.__name__}.{name}.{attr}", c) for c in _walk(v, seen)]
            else:
                out += [(f"{module.__name__}.{name}", c) for c in _walk(value, seen)]
    return out


def test_the_rulesets_cite_their_sheets() -> None:
    assert len(all_cites()) >= 5


@pytest.mark.parametrize(("where", "cite"), all_cites(), ids=lambda v: str(v)[:60])
def test_cited_text_stands_on_the_cited_line(where: str, cite: Cite) -> None:
    path = SHEETS / cite.sheet
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
