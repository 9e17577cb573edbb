"""The house shape (STYLE.md): `rules` is pure, `calibration.units` is pure, and third-party
types stop at their adapters. Each package is imported in a fresh interpreter and what it pulled
into `sys.modules` is checked."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

IMPORTS_PUPIL = re.compile(r"^\s*(import|from)\s+pupil_apriltags", re.MULTILINE)
FORBIDDEN = ("cv2", "flask", "werkzeug", "pupil_apriltags", "vision", "webui")


def modules_after_import(module: str) -> set[str]:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


@pytest.mark.parametrize(
    "module",
    [
        "rules.engine",
        "rules.answer",
        "rules.scene",
        "rules.geometry",
        "rules.measure",
        "rules.dice",
        "rules.rulesets",
    ],
)
def test_rules_never_pull_in_the_camera_or_the_web(module: str) -> None:
    loaded = modules_after_import(module)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert bad == [], f"{module} imported {bad}"


def test_the_scene_model_imports_no_rules() -> None:
    # rules/scene.py is the data model: reading a scene's format loads neither the engine, the
    # measuring layer nor any ruleset (the engine reads a scene under its ruleset).
    loaded = modules_after_import("rules.scene")
    rules = sorted(m for m in loaded if m.startswith("rules."))
    assert not [m for m in rules if m.startswith("rules.rulesets")], rules
    assert "rules.engine" not in rules and "rules.measure" not in rules, rules
    assert "numpy" not in loaded


def test_the_registry_imports_a_ruleset_only_when_it_is_asked_for() -> None:
    code = (
        "import json, sys; from rules.engine import get_ruleset, ruleset_ids; ids = ruleset_ids(); "
        "get_ruleset('europe-19c'); print(json.dumps(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    rulesets = [m for m in json.loads(out.stdout) if m.startswith("rules.rulesets.")]
    assert "rules.rulesets.europe_19c.ruleset" in rulesets
    assert all(m.startswith("rules.rulesets.europe_19c") for m in rulesets), rulesets


def test_units_module_is_standard_library_only() -> None:
    loaded = modules_after_import("calibration.units")
    assert "numpy" not in loaded
    assert not any(m.split(".")[0] in FORBIDDEN for m in loaded)


@pytest.mark.parametrize(
    "module",
    ["calibration.homography", "calibration.camera", "calibration.fit", "calibration.store"],
)
def test_calibration_knows_no_detector_and_no_rules(module: str) -> None:
    loaded = modules_after_import(module)
    bad = sorted(
        m
        for m in loaded
        if m.split(".")[0] in ("rules", "vision", "webui", "flask", "pupil_apriltags")
    )
    assert bad == [], f"{module} imported {bad}"


@pytest.mark.parametrize("module", ["vision.game", "vision.scene", "vision.printing"])
def test_only_the_detector_adapter_imports_pupil_apriltags(module: str) -> None:
    loaded = modules_after_import(module)
    assert "pupil_apriltags" not in loaded
    assert not any(m.split(".")[0] in ("flask", "webui") for m in loaded)


def test_no_module_but_the_adapter_imports_pupil_apriltags() -> None:
    root = Path(__file__).resolve().parent.parent
    offenders = [
        str(path.relative_to(root))
        for package in ("rules", "calibration", "vision", "webui")
        for path in (root / package).rglob("*.py")
        if IMPORTS_PUPIL.search(path.read_text(encoding="utf-8")) and path.name != "detect.py"
    ]
    assert offenders == []
