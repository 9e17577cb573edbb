"""Camera faults, through the tracker behind `umpire serve` (`webui.live.Live`) on rendered
frames: a hand over 20 bases for 2 s, a base moved while hidden, a corner tag knocked 3 cm, a
camera knocked, a tag printed twice, a tag not in the game, a base off the table.

Frames are fed one at a time with the time they were taken (so "2 s" is the frames' clock, not
the test's), and each test waits for the tracker to publish that frame.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import queue
import time
from typing import Any

import numpy as np
import pytest

from benchmarks.bench_scan import bench_game
from vision.game import Game
from vision.render import (
    CameraSpec,
    Effects,
    TableSpec,
    TagSpec,
    camera_for_table,
    hand_polygon,
    render,
)
from vision.sources import BaseSource
from vision.synthetic import table_spec
from webui.live import Live, LiveState

SIZE = (1920, 1080)
WAIT_S = 90.0
HUDDLE = [f"b{n}" for n in range(20)]
"""Twenty bases standing close together (a battalion in line), under one hand."""
HUDDLE_AT = (900.0, 600.0)
LONE = "b30"


class TimedSource(BaseSource):
    """Frames handed in by the test, each with the time it was taken."""

    live = False

    def __init__(self) -> None:
        super().__init__("timed frames")
        self._script: queue.Queue[tuple[np.ndarray, float] | None] = queue.Queue()

    def feed(self, image: np.ndarray, at: float) -> None:
        self._script.put((image, at))

    def end(self) -> None:
        self._script.put(None)

    def _open(self) -> None:
        pass

    def _grab(self) -> tuple[np.ndarray, float, str] | None:
        try:
            shot = self._script.get(timeout=WAIT_S)
        except queue.Empty:
            return None
        return None if shot is None else (shot[0], shot[1], self.description)

    def _release(self) -> None:
        pass


@pytest.fixture(scope="module")
def game() -> Game:
    return bench_game(bases=40)


@pytest.fixture(scope="module")
def start(game: Game) -> dict[str, Any]:
    return huddle_layout(game)


def huddle_layout(game: Game) -> dict[str, Any]:
    """The huddle in five ranks of four, 45 mm apart; the other bases in a ring around it."""
    units = []
    n = 0
    for unit in game.units:
        bases = []
        for base in unit.bases:
            if base.id in HUDDLE:
                row, col = divmod(n, 4)
                x, y = HUDDLE_AT[0] - 67.5 + 45.0 * col, HUDDLE_AT[1] - 90.0 + 45.0 * row
            else:
                angle = 2 * math.pi * (n - 20) / 20
                x, y = 900.0 + 650.0 * math.cos(angle), 600.0 + 420.0 * math.sin(angle)
            bases.append({"id": base.id, "x": x, "y": y, "facing": 90.0})
            n += 1
        units.append({"id": unit.id, "bases": bases})
    return {"unit": "mm", "units": units, "terrain": []}


@pytest.fixture(scope="module")
def camera(game: Game, start: dict[str, Any]) -> CameraSpec:
    return camera_for_table(table_spec(game, start), *SIZE, 1500.0, tilt_deg=5.0)


def picture(
    spec: TableSpec, camera: CameraSpec, seed: int, hand: Any = None
) -> tuple[np.ndarray, Any]:
    look = Effects(blur_px=0.8, noise_sigma=3.0, hand=hand)
    frame = render(spec, camera, look, np.random.default_rng(seed))
    return frame.image, frame.truth


def run(live: Live, source: TimedSource, frames: list[tuple[np.ndarray, float]]) -> list[LiveState]:
    """Feed the frames in turn; the state published after each."""
    states = []
    for image, at in frames:
        index = live.state.frame + 1
        source.feed(image, at)
        deadline = time.monotonic() + WAIT_S
        state = live.state
        with live.changed:
            while state.frame < index:
                assert time.monotonic() < deadline, f"frame {index} was never scanned"
                live.changed.wait(0.5)
                state = live.state
        states.append(state)
    return states


def detection(state: LiveState) -> Any:
    assert state.scene_doc is not None, state.error
    return state.scene_doc["detection"]


def bases(state: LiveState) -> dict[str, dict[str, Any]]:
    assert state.scene_doc is not None, state.error
    return {b["id"]: b for u in state.scene_doc["units"] for b in u["bases"]}


def place(base: dict[str, Any]) -> tuple[float, float]:
    return (float(base["x"]), float(base["y"]))


def moved_copy(scene: dict[str, Any], ident: str, dx: float) -> dict[str, Any]:
    out = copy.deepcopy(scene)
    for unit in out["units"]:
        for base in unit["bases"]:
            if base["id"] == ident:
                base["x"] += dx
    return out


def live_for(game: Game, **options: Any) -> tuple[Live, TimedSource]:
    source = TimedSource()
    return Live(source, game, **options).start(), source


def test_a_hand_over_20_bases_for_2_s_leaves_them_stale_where_they_were(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    spec = table_spec(game, start)
    hand = hand_polygon((HUDDLE_AT[0], HUDDLE_AT[1] + 130.0), 90.0, scale=2.2)
    clear, _ = picture(spec, camera, 1)
    covered = [picture(spec, camera, 2 + i, hand) for i in range(5)]
    by_tag = {b.tag: b.id for u in game.units for b in u.bases}
    under = {by_tag[t.tag_id] for t in covered[0][1].tags if t.occluded and t.tag_id in by_tag}
    assert set(HUDDLE) <= under, f"the hand must cover the huddle, covers {sorted(under)}"
    after, _ = picture(spec, camera, 9)

    live, source = live_for(game, stale_seconds=5.0)
    try:
        times = [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 2.6]
        images = [clear] + [c[0] for c in covered] + [after]
        states = run(live, source, list(zip(images, times, strict=True)))
    finally:
        source.end()
        live.stop()
    before = bases(states[0])
    assert set(before) == {f"b{n}" for n in range(40)}
    for state in states[1:6]:
        shown = bases(state)
        for ident in under:
            # Still on the map, marked stale, exactly where it was last seen.
            assert shown[ident].get("stale") is True
            assert place(shown[ident]) == place(before[ident])
        assert state.status["bases"]["stale"] == len(under)
    # Covered from 0.5 s to 2.5 s: at 2.5 s they were last seen 2.5 s before, at 0 s.
    ages = {s["base"]: s["age"] for s in detection(states[5])["stale_bases"]}
    assert ages[HUDDLE[0]] == pytest.approx(2.5)
    back = bases(states[6])
    assert not any(b.get("stale") for b in back.values())
    for ident in under:
        assert math.dist(place(back[ident]), place(before[ident])) < 0.5


def test_a_base_moved_while_hidden_is_shown_moved_only_once_it_has_settled(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    lone = next(b for u in start["units"] for b in u["bases"] if b["id"] == LONE)
    away = moved_copy(start, LONE, 120.0)
    hand = hand_polygon((lone["x"] + 60.0, lone["y"] - 20.0), 90.0, scale=1.3)
    frames = [(picture(table_spec(game, start), camera, 20)[0], 0.0)]
    frames.append((picture(table_spec(game, away), camera, 21, hand)[0], 0.3))
    still = [picture(table_spec(game, away), camera, 22 + i)[0] for i in range(7)]
    frames += [(image, 0.6 + 0.2 * i) for i, image in enumerate(still)]

    live, source = live_for(game, settle_seconds=0.5)
    try:
        states = run(live, source, frames)
    finally:
        source.end()
        live.stop()
    old = place(bases(states[0])[LONE])
    new = (lone["x"] + 120.0, lone["y"])
    first_settling = None
    shown_moved_at = None
    for (_, at), state in zip(frames, states, strict=True):
        base = bases(state)[LONE]
        if base.get("stale"):
            assert place(base) == old  # never anywhere in between
            settling = [s for s in detection(state)["settling_bases"]]
            if settling and first_settling is None:
                first_settling = at - settling[0]["seen_for"]
        elif shown_moved_at is None and math.dist(place(base), old) > 1.0:
            shown_moved_at = at
            assert math.dist(place(base), new) < 0.5
    assert first_settling is not None, "the base was never seen settling at its new place"
    assert shown_moved_at is not None, "the base was never shown at its new place"
    assert shown_moved_at - first_settling >= 0.5


def test_a_corner_tag_knocked_3_cm_is_left_out_and_the_page_warns(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    # Corner tag 2 (far right) slid 3 cm towards the middle. Four corner tags fix a table
    # transform almost exactly, so a fit through the knocked tag would bend the whole table
    # (its residual hardly shows it); the camera did not move, so the fit is kept and the
    # knocked tag named.
    spec = table_spec(game, start)
    knocked = dataclasses.replace(
        spec,
        tags=tuple(
            dataclasses.replace(t, x_mm=t.x_mm - 30.0) if t.tag_id == 2 and t.base is None else t
            for t in spec.tags
        ),
    )
    frames = [(picture(spec, camera, 30)[0], 0.0)]
    frames += [(picture(knocked, camera, 31 + i)[0], 0.2 + 0.2 * i) for i in range(3)]
    live, source = live_for(game)
    try:
        states = run(live, source, frames)
    finally:
        source.end()
        live.stop()
    assert states[0].status["warnings"] == []
    last = states[-1]
    assert last.scan is not None and states[0].scan is not None
    assert last.scan.fit is states[0].scan.fit
    assert detection(last)["calibration"]["moved_tags"] == [2]
    warning = " | ".join(last.status["warnings"])
    assert "corner tag 2 has moved" in warning
    truth = {b["id"]: place(b) for u in start["units"] for b in u["bases"]}
    shown = bases(last)
    assert len(shown) == 40
    assert max(math.dist(place(b), truth[i]) for i, b in shown.items()) < 1.0


def test_a_knocked_camera_is_fitted_again_and_bases_stay_put(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    spec = table_spec(game, start)
    knocked = camera_for_table(spec, *SIZE, 1500.0, tilt_deg=5.6, yaw_deg=0.8)
    frames = [(picture(spec, camera, 40)[0], 0.0)]
    frames += [(picture(spec, knocked, 41 + i)[0], 0.2 + 0.2 * i) for i in range(4)]
    live, source = live_for(game)
    try:
        states = run(live, source, frames)
    finally:
        source.end()
        live.stop()
    first, last = states[0].scan, states[-1].scan
    assert first is not None and last is not None and last.fit is not first.fit
    truth = {b["id"]: place(b) for u in start["units"] for b in u["bases"]}
    shown = bases(states[-1])
    assert not any(b.get("stale") for b in shown.values())
    assert max(math.dist(place(b), truth[i]) for i, b in shown.items()) < 1.0
    assert states[-1].status["warnings"] == []


def test_a_tag_printed_twice_a_stranger_and_a_base_off_the_table_are_reported(
    game: Game, start: dict[str, Any], camera: CameraSpec
) -> None:
    spec = table_spec(game, start)
    lone = next(t for t in spec.tags if t.base is not None and t.tag_id == 20 + 30)
    extra = (
        dataclasses.replace(lone, x_mm=300.0, y_mm=300.0),  # a second print of b30's tag
        TagSpec("tag36h11", 400, 1500.0, 300.0, size_mm=20.0),  # in no game file
    )
    # The cloth runs 15 cm past the playing area's right edge; b31 stands on that strip.
    off = dataclasses.replace(
        spec,
        width_mm=spec.width_mm + 150.0,
        tags=tuple(
            dataclasses.replace(t, x_mm=1860.0) if t.tag_id == 20 + 31 else t for t in spec.tags
        )
        + extra,
    )
    live, source = live_for(game)
    try:
        states = run(live, source, [(picture(off, camera, 50)[0], 0.0)])
    finally:
        source.end()
        live.stop()
    status = states[0].status
    assert [d["id"] for d in status["duplicate_tags"]] == [50]
    assert [u["id"] for u in status["unknown_tags"]] == [400]
    assert [o["base"] for o in status["off_table"]] == ["b31"]
    warnings = " | ".join(status["warnings"])
    assert "tag 50 (tag36h11, base b30) is seen more than once" in warnings
    assert "tag 400 (tag36h11) is not in the game file" in warnings
    assert "b31 is seen off the table" in warnings
    shown = bases(states[0])
    assert "b30" not in shown and "b31" not in shown  # neither copy used, nor the stray


# ------------------------------------------------------------------ the stale memory alone


@pytest.fixture(scope="module")
def skirmish_doc() -> tuple[Game, dict[str, Any]]:
    """The skirmish example's scene as the tracker reports it (cm), straight from a photo."""
    from tests.test_live import GAME, LAYOUT
    from vision.game import load_game
    from vision.pipeline import Scanner

    game = load_game(GAME)
    layout = json.loads(LAYOUT.read_text())
    spec = table_spec(game, layout)
    image = render(spec, camera_for_table(spec, 1280, 720), Effects()).image
    return game, json.loads(json.dumps(Scanner(game).scan(image).scene))


def variant(doc: dict[str, Any], ident: str, dx_cm: float | None) -> dict[str, Any]:
    """The scene with one base hidden (None) or moved `dx_cm` to the right."""
    out = copy.deepcopy(doc)
    for unit in out["units"]:
        if dx_cm is None:
            unit["bases"] = [b for b in unit["bases"] if b["id"] != ident]
        for base in unit["bases"]:
            if base["id"] == ident:
                base["x"] += dx_cm
    return out


def shown(doc: dict[str, Any], ident: str) -> dict[str, Any] | None:
    return next((b for u in doc["units"] for b in u["bases"] if b["id"] == ident), None)


def test_a_base_creeping_after_it_was_hidden_is_not_taken_for_settled(
    skirmish_doc: tuple[Game, dict[str, Any]],
) -> None:
    # Seen again 1 cm away, then creeping 0.8 mm a frame at 30 fps: each frame is within the
    # 1 mm "standing still" of the one before, but it never stands still; it stays at its old
    # place, settling, the whole second and a half.
    game, doc = skirmish_doc
    live = Live(TimedSource(), game, settle_seconds=0.5)
    old = shown(doc, "rifles-1")
    assert old is not None
    live._with_stale(doc, 0.0)
    live._with_stale(variant(doc, "rifles-1", None), 0.1)
    for k in range(45):
        out = live._with_stale(variant(doc, "rifles-1", 1.0 + 0.08 * k), 0.2 + k / 30)
        base = shown(out, "rifles-1")
        assert base is not None and base.get("settling") is True
        assert base["x"] == old["x"]


def test_a_base_hidden_again_while_settling_is_stale_from_its_last_glimpse(
    skirmish_doc: tuple[Game, dict[str, Any]],
) -> None:
    # Hidden for 19.8 s, glimpsed settling 5 cm away for 0.4 s, hidden again at 20.3 s: it was
    # last seen at 20.2 s, so with 20 s of memory it is still on the map, 0.1 s stale.
    game, doc = skirmish_doc
    live = Live(TimedSource(), game, stale_seconds=20.0)
    live._with_stale(doc, 0.0)
    live._with_stale(variant(doc, "rifles-1", None), 0.1)
    for k in range(13):
        live._with_stale(variant(doc, "rifles-1", 5.0), 19.8 + k / 30)
    out = live._with_stale(variant(doc, "rifles-1", None), 20.3)
    base = shown(out, "rifles-1")
    assert base is not None and base["stale"] is True
    ages = {s["base"]: s["age"] for s in out["detection"]["stale_bases"]}
    assert ages["rifles-1"] == pytest.approx(20.3 - (19.8 + 12 / 30), abs=0.01)


def test_the_page_warns_while_the_table_fit_is_off(
    skirmish_doc: tuple[Game, dict[str, Any]],
) -> None:
    # CALIBRATION_WARN_MM is 2 mm: a worst corner residual of 0.31 cm warns, 0.19 cm does not.
    game, _ = skirmish_doc
    live = Live(TimedSource(), game)
    fit = {"rms": 0.2, "unit": "cm", "rejected_tags": [], "moved_tags": []}
    assert live._warnings({"calibration": {**fit, "worst": 0.19}}) == []
    (warning,) = live._warnings({"calibration": {**fit, "worst": 0.31}})
    assert warning.startswith("the table fit is off by up to 0.31 cm at the corner tags")
