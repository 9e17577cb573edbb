"""Sheet data files (rules/sheetdata.py): tables read from TOML, every `{line, quote}` a Cite."""

from __future__ import annotations

from pathlib import Path

import pytest

from rules.answer import Cite
from rules.sheetdata import SheetDataError, load_sheet_data


def test_a_line_and_a_quote_become_a_cite_of_the_sheet(tmp_path: Path) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(
        'move = 25\ncite = { line = 107, quote = "Foot Figures may move" }\n'
        '[[to_hit]]\nband = "short"\nneed = [2, 4, 6]\n'
        'cite = { line = 41, quote = "Short Range" }\n',
        encoding="utf-8",
    )
    data = load_sheet_data(path, "000_157c880a83b52d41.txt")
    assert data["move"] == 25
    assert data["cite"] == Cite("000_157c880a83b52d41.txt", 107, "Foot Figures may move")
    assert data["to_hit"] == [
        {
            "band": "short",
            "need": [2, 4, 6],
            "cite": Cite("000_157c880a83b52d41.txt", 41, "Short Range"),
        }
    ]


@pytest.mark.parametrize(
    "text", ['cite = { line = "41", quote = "x" }', 'cite = { line = 41, quote = "" }', "a = [1"]
)
def test_a_broken_data_file_says_so(tmp_path: Path, text: str) -> None:
    path = tmp_path / "sheet.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SheetDataError, match=r"sheet\.toml"):
        load_sheet_data(path, "x.txt")
