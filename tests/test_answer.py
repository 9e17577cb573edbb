"""The values answers are built from (`rules/answer.py`)."""

from __future__ import annotations

import pytest

from rules.answer import Resolution


def test_an_answer_built_up_is_read_only_and_keeps_its_lines() -> None:
    data = {"action": "shoot", "allowed": True}
    res = Resolution.of("shoot", data, iter(["a to b: 2 boxes", "allowed"]))
    assert (res.action, res.lines, res.as_json()) == ("shoot", ("a to b: 2 boxes", "allowed"), data)
    with pytest.raises(TypeError):
        res.data["allowed"] = False  # type: ignore[index]
