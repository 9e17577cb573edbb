"""The rules answer every question of every example scene, and the every-phase `suggest` of
each example tiled to 10, 40 and 120 bases, as the golden files say (see `tests/golden`): a
change of answer must come with the golden files written again (`python -m tests.golden`), so
that it shows in their diff."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.golden import SCALES, example_scenes, golden_path, lines, scale_lines, scale_path


@pytest.mark.parametrize("example", example_scenes(), ids=lambda p: p.stem)
def test_every_answer_is_the_golden_one(example: Path) -> None:
    expected = golden_path(example).read_text(encoding="utf-8").split("\n## ")
    got = "\n".join(lines(example)).split("\n## ")
    assert len(got) == len(expected), "the questions asked changed: run python -m tests.golden"
    for want, have in zip(expected, got, strict=True):
        question = have.split("\n", 1)[0].removeprefix("## ")
        assert have.rstrip("\n") == want.rstrip("\n"), f"the answer to {question!r} changed"


@pytest.mark.parametrize("bases", SCALES)
@pytest.mark.parametrize("example", example_scenes(), ids=lambda p: p.stem)
def test_suggest_at_scale_is_the_golden_one(example: Path, bases: int) -> None:
    expected = scale_path(example, bases).read_text(encoding="utf-8").split("\n## ")
    got = "\n".join(scale_lines(example, bases)).split("\n## ")
    for want, have in zip(expected, got, strict=False):
        block = have.split("\n", 1)[0].removeprefix("## ")
        assert have.rstrip("\n") == want.rstrip("\n"), f"{block!r} changed"
    assert len(got) == len(expected), "the suggestions changed: run python -m tests.golden"


def test_the_golden_files_hold_answers_and_refusals() -> None:
    # The files are not empty, and a refusal is recorded with its message: questions the rules
    # cannot answer count as answers too.
    text = golden_path(example_scenes()[0]).read_text(encoding="utf-8")
    assert text.count("\n## ") > 50
    assert '"error":' in text and '"action":' in text
