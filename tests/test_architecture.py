"""The house shape (STYLE.md): `rules` is pure, `calibration.units` is pure, and third-party
types stop at their adapters. Each package is imported in a fresh interpreter and what it pulled
into `sys.modules` is checked."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FORBIDDEN = ("cv2", "flask", "werkzeug", "pupil_apriltags", "vision", "webui")


def modules_after_import(module: str) -> set[str]:
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout))


@pytest.mark.parametrize(
    "module",
    [
        "rules.engine",
        "rules.scene",
        "rules.geometry",
        "rules.table",
        "rules.dice",
        "rules.rulesets",
    ],
)
def test_rules_never_pull_in_the_camera_or_the_web(module: str) -> None:
    loaded = modules_after_import(module)
    bad = sorted(m for m in loaded if m.split(".")[0] in FORBIDDEN)
    assert bad == [], f"{module} imported {bad}"


def test_units_module_is_standard_library_only() -> None:
    loaded = modules_after_import("calibration.units")
    assert "numpy" not in loaded
    assert not any(m.split(".")[0] in FORBIDDEN for m in loaded)
