"""Every built-in demo (`umpire serve --demo RULESET`): a game of its sheet that a club could
play live. For each ruleset: its game file loads, it has 30 to 60 bases, its tags meet the rig
rule for the demo's camera, its suggestions in every phase together cover every action of the
sheet and none of them "cannot answer", and the real detector finds every tag in a rendered
frame of it."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from rules.engine import get_ruleset, read_scene, ruleset_ids
from rules.scene import Scene
from vision.demo import DEMO_CAMERA_TILT_DEG, demo_files, demo_rulesets, open_demo_game
from vision.game import load_game
from vision.pipeline import Scanner
from vision.printing import rig_plan

NOT_SUGGESTED = {"measure", "suggest"}
"""Actions a table asks for itself rather than being offered."""


def test_every_ruleset_has_a_demo() -> None:
    assert demo_rulesets() == sorted(ruleset_ids())


def _scene(ruleset: str) -> tuple[Any, Scene]:
    from rules.engine import load_scene

    game_path, layout_path = demo_files(ruleset)
    return load_game(game_path), load_scene(layout_path)


def _items(scene: Scene) -> list[tuple[str, dict[str, Any]]]:
    rules = get_ruleset(scene.ruleset)
    out = []
    for phase in rules.phases:
        answer = rules.resolve(scene, "suggest", [phase]).as_json()
        out += [(phase, item) for item in answer["items"]]
    return out


@pytest.mark.parametrize("ruleset", sorted(ruleset_ids()))
def test_the_demo_game_is_a_whole_game(ruleset: str) -> None:
    game, scene = _scene(ruleset)
    assert game.ruleset == scene.ruleset == ruleset
    bases = [b for u in game.units for b in u.bases]
    assert 30 <= len(bases) <= 60
    assert len({u.side for u in game.units}) >= 2
    # The layout the camera photographs is the game file's: the same units and bases.
    assert {b.id for b in bases} == {b.id for b in scene.bases()}


@pytest.mark.parametrize("ruleset", sorted(ruleset_ids()))
def test_the_demo_suggests_every_action_and_each_suggestion_answers(ruleset: str) -> None:
    _, scene = _scene(ruleset)
    rules = get_ruleset(scene.ruleset)
    items = _items(scene)
    kinds = {item["kind"] for _, item in items}
    assert kinds >= set(rules.actions()) - NOT_SUGGESTED, sorted(kinds)
    for phase, item in items:
        said = f"{ruleset} {phase}: {item['kind']} {item['args']}: {item.get('summary')}"
        assert "cannot answer" not in str(item.get("summary", "")), said
        assert isinstance(item.get("result"), dict) and "error" not in item["result"], said
        rules.resolve(scene, item["kind"], item["args"])  # asked directly, it answers too


@pytest.mark.parametrize("ruleset", sorted(ruleset_ids()))
def test_the_demo_tags_meet_the_rig_rule_for_the_demo_camera(ruleset: str) -> None:
    game, _ = _scene(ruleset)
    with open_demo_game(ruleset, realtime=False) as demo:
        camera = demo.camera
    assert camera.focal_px is not None
    hfov = 2 * math.degrees(math.atan(camera.width_px / 2 / camera.focal_px))
    plan = rig_plan(
        game.table_width,
        game.table_depth,
        camera.width_px,
        camera.height_px,
        hfov,
        tilt_deg=DEMO_CAMERA_TILT_DEG,
    )
    sizes = [b.spec.size for u in game.units for b in u.bases]
    sizes += [t.spec.size for t in game.terrain if t.spec is not None]
    assert min(sizes) >= plan.smallest_tag_mm, (min(sizes), plan.smallest_tag_mm)


@pytest.mark.parametrize("ruleset", sorted(ruleset_ids()))
def test_the_detector_finds_every_tag_of_a_demo_frame_and_the_scene_plays(ruleset: str) -> None:
    # What the page works on is the camera's scene, not the layout: measured positions, the
    # tracker's own uncertainty. It must find every piece, and still suggest every action of
    # the sheet, each of which answers.
    game, _ = _scene(ruleset)
    with open_demo_game(ruleset, realtime=False, hand_every=0, move_every=0) as demo:
        frame = demo.read()
        assert frame is not None
        scan = Scanner(game).scan(frame.image)
    seen = {b["id"] for u in scan.scene["units"] for b in u["bases"]}
    assert seen == {b.id for u in game.units for b in u.bases}
    assert {t["id"] for t in scan.scene["terrain"]} >= {t.id for t in game.terrain if t.tag}
    scene = read_scene(json.loads(json.dumps(scan.scene)), "camera scene")
    rules = get_ruleset(ruleset)
    items = _items(scene)
    assert {item["kind"] for _, item in items} >= set(rules.actions()) - NOT_SUGGESTED
    for phase, item in items:
        said = f"{ruleset} {phase}: {item['kind']} {item['args']}: {item.get('summary')}"
        assert "cannot answer" not in str(item.get("summary", "")), said
        assert isinstance(item.get("result"), dict) and "error" not in item["result"], said
