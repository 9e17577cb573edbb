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
arrays as lists). Pure: tomllib only; never imports numpy or anything outside `rules`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from .answer import Cite
from .errors import UmpireError

CITE_KEYS = frozenset({"line", "quote"})


class SheetDataError(UmpireError):
    """A ruleset's data file that cannot be read (a packaging fault, not a player's input)."""


def load_sheet_data(path: str | Path, sheet: str) -> dict[str, Any]:
    """The tables of `path`, every `{line, quote}` table a `Cite` of `sheet`."""
    source = Path(path)
    try:
        data = tomllib.loads(source.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SheetDataError(f"sheet data {source}: cannot be read ({error})") from None
    cited = _cited(data, sheet, source.name)
    assert isinstance(cited, dict)
    return cited


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
