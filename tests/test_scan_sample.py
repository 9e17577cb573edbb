"""The sample photo in examples/: `umpire scan examples/skirmish.jpg --game
examples/games/skirmish.toml` works on the first try and finds every base where
examples/skirmish.json (the scene it was rendered from) puts it; `render_sample` draws it."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from benchmarks import render_sample
from tests.conftest import run_umpire
from vision.game import load_game
from vision.pipeline import Scanner

REPO = Path(__file__).resolve().parent.parent
PHOTO = REPO / "examples" / "skirmish.jpg"
GAME = REPO / "examples" / "games" / "skirmish.toml"
TRUTH = json.loads((REPO / "examples" / "skirmish.json").read_text(encoding="utf-8"))


def bases(doc: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["id"]: b for u in doc["units"] for b in u["bases"]}


def check_every_base(doc: Mapping[str, Any]) -> None:
    truth, seen = bases(TRUTH), bases(doc)
    assert set(seen) == set(truth)
    assert doc["detection"]["missing_bases"] == []
    assert doc["detection"]["unknown_tags"] == []
    for name, base in truth.items():
        assert seen[name].get("seen", True), name
        # Both in cm; the tags stand above the table, uncorrected without intrinsics.
        off = math.hypot(seen[name]["x"] - base["x"], seen[name]["y"] - base["y"])
        assert off < 0.3, (name, off)


def test_umpire_scan_reads_the_sample_on_the_first_try(tmp_path: Path) -> None:
    out = run_umpire("scan", PHOTO, "--game", GAME, "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    check_every_base(doc)
    assert doc["detection"]["calibration"]["reference_tags"] == [0, 1, 2, 3]
    assert PHOTO.stat().st_size < 400_000  # kept small in the repository


def test_render_sample_draws_the_example_game(tmp_path: Path) -> None:
    out = tmp_path / "sample.png"
    assert render_sample.main([str(out), "--frames", "0"]) == 0
    image = cv2.imread(str(out))
    assert image is not None
    check_every_base(Scanner(load_game(GAME)).scan(np.asarray(image, dtype=np.uint8)).scene)
