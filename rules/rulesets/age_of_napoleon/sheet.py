"""The page's tables, read from sheet.toml: every number and word with its Cite."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from ...errors import QuestionError
from ...sheetdata import load_sheet_data
from ...state import Field, Kind, Phase

RULESET_ID, SHEET = "age-of-napoleon", "003_5b7c133d01707a77.txt"
DATA: dict[str, Any] = load_sheet_data(Path(__file__).with_name("sheet.toml"), SHEET)
CITE = SimpleNamespace(**DATA["cites"])
"""The lines the mechanics quote, by name (`CITE.diagonal`)."""
N = SimpleNamespace(**DATA["numbers"])
"""The page's numbers, by name (`N.leader_check_hits`)."""

UNIT_FIELDS = tuple(
    Field(**{**f, "kind": Kind(f["kind"]), "choices": tuple(f.get("choices", ()))})
    for f in DATA["fields"]
)
PHASE_STEPS = tuple(Phase(**p, acting="all") for p in DATA["sequence"]["phases"])
CHOICES = {f.name: f.choices for f in UNIT_FIELDS if f.choices}
"""The words each of the page's choices accepts (`type`, `die`, `quality`, `gun_state`...)."""


def say(name: str, **values: Any) -> str:
    """One of the texts of the answers (sheet.toml `[texts]`), its `{names}` filled in: the
    values given, and the page's cites and numbers by name."""
    return str(DATA["texts"][name]).format(**vars(CITE), **vars(N), **values)


def fail(message: str) -> QuestionError:
    """A question the page refuses, and why."""
    return QuestionError(f"{RULESET_ID}: {message}")
