"""`umpire bench` (vision/benchtrack.py, webui/benchcli.py): the scoring, the ground truth, the
video's story, the options and the contract's JSON. Timings are printed by the benchmark, never
asserted here; the real runs below are tiny and only check that the harness measures."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

import numpy as np
import pytest

from calibration.camera import CameraModel
from rules.errors import UmpireError
from vision.benchtrack import (
    BasePose,
    BenchError,
    FrameTruth,
    Move,
    SceneScanner,
    Tally,
    base_side,
    bench_game,
    count_misses,
    make_video,
    naive_scanner,
    run_bench,
    score_frame,
    summary,
    tag_sizes,
    time_frame,
    visible_bases,
)
from vision.game import Game
from vision.pipeline import Scanner
from vision.render import CameraSpec, Effects, TableSpec, TagSpec, hand_polygon, render
from webui import cli
from webui.benchcli import BenchOptionError, add_bench_parser, bench_options, run_bench_command

# --------------------------------------------------------------------------- scoring


def truth(visible: set[str]) -> FrameTruth:
    return FrameTruth(
        bases={"b1": (100.0, 200.0), "b2": (300.0, 400.0), "b3": (500.0, 500.0)},
        visible=frozenset(visible),
        hand=None,
        moving=frozenset(),
    )


def scene(unit: str, bases: dict[str, tuple[float, float]]) -> dict[str, object]:
    return {
        "unit": unit,
        "units": [{"id": "u", "bases": [{"id": k, "x": x, "y": y} for k, (x, y) in bases.items()]}],
    }


def test_a_base_found_off_its_place_counts_its_distance_in_mm() -> None:
    tally = Tally()
    # b1 stands at (100, 200) mm; the scene (cm) puts it at (10.3, 20.4) cm = (103, 204) mm:
    # off by (3, 4) mm, so hypot = 5 mm. b2 is visible but not in the scene: a miss. b3 is
    # hidden (under a hand) but the scene still holds it, at its true place: held, error 0.
    score_frame(tally, scene("cm", {"b1": (10.3, 20.4), "b3": (50.0, 50.0)}), truth({"b1", "b2"}))
    assert tally.visible == 2
    assert tally.found == 1
    assert tally.errors_mm == [pytest.approx(5.0)]
    assert tally.misplaced == 0  # 5 mm is the limit, not past it
    assert tally.held == 1
    assert tally.held_errors_mm == [pytest.approx(0.0)]


def test_a_base_past_five_mm_is_misplaced_and_inches_are_converted() -> None:
    tally = Tally()
    # b2 at (300, 400) mm = (11.811..., 15.748...) in; the scene says 12 in x: 304.8 mm, so
    # 4.8 mm off along x, and 16 in y: 406.4 mm, 6.4 mm off: hypot(4.8, 6.4) = 8 mm.
    score_frame(tally, scene("in", {"b2": (12.0, 16.0)}), truth({"b1", "b2", "b3"}))
    assert (tally.visible, tally.found, tally.misplaced) == (3, 1, 1)
    assert tally.errors_mm == [pytest.approx(8.0)]


def test_summary_rates_and_percentiles_by_hand() -> None:
    tally = Tally(
        seconds=[0.1, 0.2, 0.3, 0.4],
        cpu_seconds=[0.1, 0.1, 0.1, 0.1],
        visible=8,
        found=6,
        errors_mm=[1.0, 2.0, 3.0, 4.0, 5.0],
    )
    row = summary(tally)
    # median frame time (0.2 + 0.3) / 2 = 0.25 s -> 4 fps; 4 frames in 1.0 s -> 4 fps sustained;
    # 95th percentile (linear) at rank 0.95 * 3 = 2.85: 0.3 + 0.85 * 0.1 = 0.385 s -> 2.597 fps.
    assert row["fps"] == pytest.approx(4.0)
    assert row["fps_sustained"] == pytest.approx(4.0)
    assert row["fps_worst5"] == pytest.approx(1 / 0.385, abs=0.01)
    assert row["latency_ms"] == {"median": pytest.approx(250.0), "p95": pytest.approx(385.0)}
    # Without the first frame: 3 frames in 0.9 s -> 3.33 fps. The slowest first, in ms.
    assert row["fps_sustained_after_first"] == pytest.approx(3 / 0.9, abs=0.01)
    assert row["slowest_frames"] == [[3, 400.0], [2, 300.0], [1, 200.0], [0, 100.0]]
    assert row["recall"] == pytest.approx(6 / 8)
    # errors 1..5: median 3; p99 at rank 0.99 * 4 = 3.96: 4 + 0.96 * 1 = 4.96.
    assert row["median_error_mm"] == pytest.approx(3.0)
    assert row["p99_error_mm"] == pytest.approx(4.96)


def test_the_longest_miss_is_counted_base_by_base_on_a_hand_made_sequence() -> None:
    # Frame by frame: (visible bases, bases found).
    frames = [
        ({"a", "b", "c"}, {"a", "b", "c"}),  # 0: all found
        ({"a", "b", "c"}, {"b", "c"}),  # 1: a missed (run 1)
        ({"a", "b", "c"}, {"c"}),  # 2: a (2), b (1)
        ({"b", "c"}, {"c"}),  # 3: a hidden (its run stays 2), b (2)
        ({"a", "b", "c"}, {"b", "c"}),  # 4: a (3: a hidden frame does not end a run), b found
        ({"a", "b", "c"}, {"a", "b"}),  # 5: a found (its run ends at 3), c (1)
        ({"a", "b", "c"}, {"a", "b", "c", "x"}),  # 6: all found; x is no visible base
        ({"a", "b"}, set()),  # 7: a (1), b (1); c hidden, not missed
    ]
    tally = Tally()
    for visible, found in frames:
        count_misses(tally, visible, found)
    assert tally.frames == 8
    assert tally.longest_miss == 3
    assert tally.longest_miss_base == "a"
    assert tally.longest_miss_frames == (1, 4)  # from its first missed frame to its last
    tally.seconds, tally.cpu_seconds = [0.1] * 8, [0.1] * 8
    row = summary(tally)
    assert row["longest_miss_frames"] == 3
    assert row["longest_miss"] == {"base": "a", "frames": [1, 4]}
    # A run of two frames in a row with every base missed counts 2, not the number of bases.
    tally = Tally()
    for _ in range(2):
        count_misses(tally, {"a", "b", "c"}, set())
    assert tally.longest_miss == 2


def test_a_frame_the_scanner_refuses_misses_every_visible_base() -> None:
    class Refusing:
        def scan(self, image: np.ndarray) -> Any:
            raise ValueError("no corner tags")

    tally = Tally()
    for _ in range(3):
        time_frame(tally, Refusing(), np.zeros((4, 4, 3), np.uint8), truth({"b1", "b2"}))
    assert tally.longest_miss == 3 and tally.failed == ["no corner tags"] * 3


# --------------------------------------------------------------------------- ground truth


def test_tags_under_the_hand_are_not_counted_visible() -> None:
    table = TableSpec(
        1800.0,
        1200.0,
        tags=(
            TagSpec("tag36h11", 10, 900.0, 480.0, size_mm=25.0),
            TagSpec("tag36h11", 11, 1150.0, 600.0, size_mm=25.0),
            TagSpec("tag36h11", 12, 900.0, 720.0, size_mm=25.0),
        ),
    )
    camera = CameraSpec(1280, 720, 1500.0, fov_deg=70.0)  # straight down over (900, 600)
    # Fingertips at the table centre, the arm reaching in from the near edge (-y), 80 mm up.
    # Seen from 1500 mm straight above the centre, the hand covers the table points 1500 / 1420
    # = 1.056 times as far from the centre as its own points. Tag 10 spans y 467.5-492.5, 108
    # to 133 mm behind the fingertips, where the hand is 80-90 mm wide (half-widths 48 at 80 mm
    # and 40 at 110 mm back): covered. Tag 12 lies 108-133 mm in front of the fingertips and
    # tag 11 250 mm to their side, beyond the hand's widest half (48 * 1.056 = 51 mm): seen.
    frame = render(table, camera, Effects(hand=hand_polygon((900.0, 600.0), 90.0)))
    assert visible_bases(frame.truth.tags, {10: "a", 11: "b", 12: "c"}) == {"b", "c"}
    # Tags that are no base of the game are left out.
    assert visible_bases(frame.truth.tags, {11: "b"}) == {"b"}


# --------------------------------------------------------------------------- the game and video


def test_tag_sizes_are_spread_evenly_and_bases_fit_their_cards() -> None:
    # 8 bases over 16-25 mm: steps of 9 / 7 = 1.2857 mm, rounded to 0.1 mm.
    assert tag_sizes(8, (16.0, 25.0)) == [16.0, 17.3, 18.6, 19.9, 21.1, 22.4, 23.7, 25.0]
    game = bench_game(tags=12, tag_size=(16.0, 25.0))
    bases = [b for u in game.units for b in u.bases]
    assert len(bases) == 8 and len(game.calibration.corners) == 4
    assert sorted(b.spec.size for b in bases) == [16.0, 17.3, 18.6, 19.9, 21.1, 22.4, 23.7, 25.0]
    assert game.calibration.spec.size == 25.0  # corner tags: the largest of the range
    # A 20 mm tag36h11 tag: 8 cells of 2.5 mm plus a white cell each side = 25 mm card, plus a
    # 3 mm rim each side = 31 mm.
    assert base_side(20.0) == 31.0
    for base in bases:
        assert base.footprint.width == pytest.approx(base.spec.size * 1.25 + 6.0, abs=0.051)


def test_a_move_slides_and_turns_the_unit_about_its_centre() -> None:
    origin = {"a": BasePose(100.0, 100.0, 90.0), "b": BasePose(140.0, 100.0, 90.0)}
    move = Move("u", start=10, dx=100.0, dy=0.0, turn=90.0, origin=origin)
    # Centre (120, 100). Turned 90 degrees CCW: a's offset (-20, 0) becomes (0, -20), b's
    # (20, 0) becomes (0, 20); then slid 100 mm along x.
    end = move.poses(10 + 29)
    assert (end["a"].x, end["a"].y, end["a"].facing) == pytest.approx((220.0, 80.0, 180.0))
    assert (end["b"].x, end["b"].y) == pytest.approx((220.0, 120.0))
    assert move.poses(10) == origin  # the first frame of the move: not moved yet
    # Halfway in time the easing (1 - cos(pi / 2)) / 2 gives half the way: 45 degrees, 50 mm.
    half = move.at(0.5)
    r = 20.0 / math.sqrt(2)
    assert (half["a"].x, half["a"].y) == pytest.approx((120.0 + 50.0 - r, 100.0 - r))


def test_the_video_moves_one_unit_with_a_hand_and_keeps_the_rest_still() -> None:
    game = bench_game(tags=12, tag_size=(25.0, 25.0))
    video = make_video(game, 8, resolution=(640, 360), seed=3)
    first, last = video.truth[0], video.truth[-1]
    assert video.moves == 1 and len(video.images) == 8
    assert video.images[0].shape == (360, 640, 3) and not video.images[0].flags.writeable
    assert first.hand is None and first.moving == frozenset()
    moved = last.moving
    assert len(moved) == 4 and last.hand is not None  # one unit of 4, pushed by a hand
    for ident, (x, y) in first.bases.items():
        gone = math.hypot(last.bases[ident][0] - x, last.bases[ident][1] - y)
        assert (gone > 1.0) if ident in moved else (gone == 0.0)
    # Sensor noise differs from frame to frame (as a webcam's does), even where nothing moves.
    assert not np.array_equal(video.images[0], video.images[1])


def test_setups_the_table_cannot_hold_are_refused() -> None:
    with pytest.raises(BenchError, match="tags must be a whole number from 5 to 300"):
        bench_game(tags=4)
    with pytest.raises(BenchError, match="tag sizes must be 8 to 60 mm"):
        bench_game(tags=12, tag_size=(25.0, 16.0))
    with pytest.raises(BenchError, match="frames must be a whole number"):
        run_bench(frames=0)


# --------------------------------------------------------------------------- real runs


def two_pass_scanner(game: Game, camera: CameraModel) -> SceneScanner:
    """Issue 4's scanner (both passes), standing in for the tracker: the harness takes any
    object with `.scan(image) -> Scan`."""
    return Scanner(game, camera)


def test_a_tiny_run_with_scanners_on_both_sides_finds_the_tags() -> None:
    result = run_bench(
        resolution=(1280, 720),
        tags=12,
        tag_size=(25.0, 25.0),
        frames=4,
        scanners={"naive": naive_scanner, "tracker": two_pass_scanner},
    )
    assert result["frames"] == 4
    for side in ("naive", "tracker"):
        row = result[side]
        assert row["recall"] > 0.9
        assert row["visible"] > 0 and row["failed_frames"] == []
        assert 0 <= row["median_error_mm"] <= row["p99_error_mm"] < 2.0
        assert row["fps"] > 0
    assert result["ratio"] == pytest.approx(
        result["tracker"]["fps"] / result["naive"]["fps"], rel=0.02
    )


def bench_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="umpire")
    add_bench_parser(parser.add_subparsers(dest="command"))
    return parser.parse_args(["bench", *argv])


def test_the_command_prints_the_contract_json(capsys: pytest.CaptureFixture[str]) -> None:
    opts = bench_args("--resolution", "1280x720", "--tags", "12", "--tag-size", "25")
    opts.frames = "3"
    opts.json = True
    assert run_bench_command(opts) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["frames"] == 3
    for side in ("naive", "tracker"):
        assert {"fps", "recall", "median_error_mm", "p99_error_mm"} <= set(doc[side])
        assert isinstance(doc[side]["longest_miss_frames"], int)
    assert doc["ratio"] == pytest.approx(doc["tracker"]["fps"] / doc["naive"]["fps"], rel=0.02)
    assert doc["resolution"] == "1280x720" and doc["tag_size_mm"] == [25.0, 25.0]


def test_the_demo_camera_over_a_chequered_mat(capsys: pytest.CaptureFixture[str]) -> None:
    opts = bench_args("--camera", "demo", "--mat", "chequered", "--tags", "12", "--tag-size", "30")
    opts.frames = "2"
    opts.json = True
    assert run_bench_command(opts) == 0
    doc = json.loads(capsys.readouterr().out)
    # The demo's camera: 1280x720 unless asked otherwise, looking straight down.
    assert (doc["resolution"], doc["camera"], doc["mat"]) == ("1280x720", "demo", "chequered")
    for side in ("naive", "tracker"):
        assert doc[side]["recall"] > 0.9 and doc[side]["failed_frames"] == []
    game = bench_game(tags=12, tag_size=(30.0, 30.0))
    video = make_video(game, 1, (640, 360), tilt_deg=0.0, mat_squares_mm=50.0)
    middle = video.images[0][90:270, 160:480].mean(axis=2)
    # The table is dark and light squares, not one felt green.
    assert np.percentile(middle, 10) < 60 and np.percentile(middle, 90) > 150


# --------------------------------------------------------------------------- options


def test_options_are_read_as_the_contract_writes_them() -> None:
    options = bench_options(
        bench_args("--resolution", "3840x2160", "--tags", "60", "--tag-size", "16-25")
    )
    assert options.resolution == (3840, 2160)
    assert (options.tags, options.tag_size, options.frames) == (60, (16.0, 25.0), None)
    assert bench_options(bench_args("--tag-size", "20", "--frames", "30")).tag_size == (20.0, 20.0)


@pytest.mark.parametrize(
    ("option", "value", "accepted"),
    [
        ("--resolution", "1920", "expected WIDTHxHEIGHT"),
        ("--resolution", "100x100", "320-8192 wide"),
        ("--tags", "4", "from 5 to 300"),
        ("--tags", "ten", "from 5 to 300"),
        ("--frames", "0", "from 1 to 10000"),
        ("--frames", "2.5", "from 1 to 10000"),
        ("--tag-size", "25-16", "MIN <= MAX"),
        ("--tag-size", "3", "8 to 60"),
        ("--tag-size", "big", "for example 16-25"),
        ("--camera", "webcam", "one of bench, demo"),
        ("--mat", "grass", "one of felt, chequered"),
    ],
)
def test_a_bad_option_names_itself_and_what_is_accepted(
    option: str, value: str, accepted: str
) -> None:
    with pytest.raises(BenchOptionError) as caught:
        run_bench_command(bench_args(option, value))
    message = str(caught.value)
    assert message.startswith(f"{option}: ")
    assert accepted in message and repr(value) in message
    assert isinstance(caught.value, UmpireError)  # `umpire` turns these into exit status 2


def umpire_commands() -> set[str]:
    """The sub-commands `umpire` knows (the lead registers `bench` in webui/cli.py)."""
    return {
        name
        for action in cli.build_parser()._actions
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    }


@pytest.mark.skipif(
    "bench" not in umpire_commands(), reason="webui/cli.py does not register `umpire bench` yet"
)
def test_umpire_bench_exits_2_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["bench", "--tags", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--tags" in err and "from 5 to 300" in err
