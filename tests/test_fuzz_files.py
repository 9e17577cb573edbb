"""Issue 7, "hostile and broken input": the three file formats fuzzed with hypothesis.

Each fuzzer starts from a document that loads (the example scenes, the example game, a camera
and a table fit saved by `calibration.store`) and spoils it (tests/fuzz_mutate.py): as a
decoded document handed to the parser, as a file written back in its format, and as damaged
bytes. The property: the loader either returns a sane object (finite lengths, facings in
[0, 360), unique ids, ...) or raises the package's own error whose message is one line; any
other exception is a bug in the loader. A small sample goes through the real command line: exit
status 2 and one line on stderr, never a traceback.

Hypothesis is derandomized and keeps no example database, so every run tries the same inputs.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import datetime as dt
import io
import json
import math
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from calibration.camera import CameraModel
from calibration.errors import CalibrationError
from calibration.homography import TableFit, fit_table_transform
from calibration.store import (
    camera_from_dict,
    load_camera,
    load_table_fit,
    save_camera,
    save_table_fit,
    table_fit_from_dict,
)
from rules.engine import get_ruleset, load_scene, read_scene
from rules.errors import SceneError, UmpireError
from rules.reader import (
    MAX_BASES,
    MAX_GAME_BYTES,
    MAX_SCENE_BYTES,
    MAX_TERRAIN_POINTS,
    polygon_problem,
)
from rules.scene import Scene
from tests.fuzz_mutate import damaged, mutated, renumbered, text_values, to_toml, values
from vision.game import Game, GameError, game_tags, load_game, parse_game
from vision.tags import BORDER_BITS, FAMILIES, family_size
from webui.cli import main as umpire_main

# NaN born inside numpy (a warning, not an error, by default) is a bug like any other here.
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

REPO = Path(__file__).resolve().parent.parent
SCENE_FILES = sorted((REPO / "examples").glob("*.json"))
GAME_FILE = REPO / "examples" / "games" / "skirmish.toml"


def fuzz(examples: int) -> settings:
    """Deterministic settings: the same inputs every run, no database written into the repo."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def tally(outcome: str) -> None:
    """Count loaded and refused inputs (`pytest --hypothesis-show-statistics` shows them)."""
    if currently_in_test_context():
        event(outcome)


def assert_one_line(error: Exception) -> None:
    """A message people can read on one line of stderr."""
    tally("refused")
    message = str(error)
    assert message.strip(), repr(error)
    assert len(message.splitlines()) == 1, message
    assert "Traceback" not in message


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder for the files the fuzzers write (each example overwrites the last)."""
    return tmp_path_factory.mktemp("fuzz")


def finite(value: float, *, positive: bool = False, at_least_zero: bool = False) -> bool:
    if not math.isfinite(value):
        return False
    if positive:
        return value > 0
    return value >= 0 if at_least_zero else True


# --------------------------------------------------------------------------------------------
# Scene JSON

SCENE_DOCS = [json.loads(p.read_text(encoding="utf-8")) for p in SCENE_FILES]
SCENE_BYTES = [p.read_bytes() for p in SCENE_FILES]

# What JSON can carry: null, no NaN in a file (the in-process parser still gets NaN), any string.
JSON_KEYS = text_values(surrogates=True)
JSON_VALUES = values(null=True, non_finite=True)
JSON_TEXT_VALUES = values(null=True, non_finite=True, max_depth=200)  # json.dumps recurses
mutated_scene_doc = st.sampled_from(SCENE_DOCS).flatmap(
    lambda doc: mutated(doc, JSON_VALUES, JSON_KEYS)
)
mutated_scene_text = st.sampled_from(SCENE_DOCS).flatmap(
    lambda doc: mutated(doc, JSON_TEXT_VALUES, JSON_KEYS)
)


def assert_sane_scene(scene: Scene) -> None:
    """What every loaded scene promises the rules: finite millimetres, unique ids, real shapes;
    and the first question a player asks (`measure`) has a finite answer or a clear refusal."""
    tally("loaded")
    assert finite(scene.table_width, positive=True) and finite(scene.table_depth, positive=True)
    assert scene.grid_box is None or finite(scene.grid_box, positive=True)
    assert scene.uncertainty is None or finite(scene.uncertainty, at_least_zero=True)
    ids = scene.ids() + [t.id for t in scene.terrain]
    assert len(ids) == len(set(ids)), ids
    for unit in scene.units:
        assert unit.bases and isinstance(unit.side, str) and unit.side.strip()
        for base in unit.bases:
            assert finite(base.x) and finite(base.y), base
            assert 0.0 <= base.facing < 360.0, base.facing
            assert finite(base.footprint.width, positive=True), base
            assert finite(base.footprint.depth, positive=True), base
            assert isinstance(base.figures, int) and base.figures >= 1
            assert base.uncertainty is None or finite(base.uncertainty, at_least_zero=True)
    for piece in scene.terrain:
        assert len(piece.polygon) >= 3
        assert all(finite(x) and finite(y) for x, y in piece.polygon)
        assert polygon_problem(list(piece.polygon)) is None
    if len(scene.units) >= 2:
        first, second = scene.units[0].id, scene.units[1].id
        try:
            answer = get_ruleset(scene.ruleset).resolve(scene, "measure", [first, second])
        except UmpireError as refusal:
            assert_one_line(refusal)
        else:
            assert finite(answer.as_json()["distance"]["value"], at_least_zero=True)


def check_scene_doc(doc: Any) -> None:
    try:
        scene = read_scene(doc, "fuzz.json")
    except SceneError as error:
        assert_one_line(error)
    else:
        assert_sane_scene(scene)


def check_scene_file(path: Path) -> None:
    try:
        scene = load_scene(path)
    except SceneError as error:
        assert_one_line(error)
        assert str(path) in str(error)
    else:
        assert_sane_scene(scene)


def test_every_example_scene_is_a_sane_starting_point() -> None:
    # The fuzzers spoil these; each must load and be sane before it is spoilt.
    assert len(SCENE_FILES) >= 5
    for path in SCENE_FILES:
        assert_sane_scene(load_scene(path))


@fuzz(1500)
@given(mutated_scene_doc)
def test_a_mutated_scene_document_loads_or_says_why(doc: Any) -> None:
    check_scene_doc(doc)


@fuzz(500)
@given(st.sampled_from(SCENE_DOCS).flatmap(renumbered))
def test_a_scene_with_other_numbers_is_sane_or_says_why(doc: Any) -> None:
    # Mostly valid scenes with odd lengths and angles: what loads must measure sanely.
    check_scene_doc(doc)


@fuzz(400)
@given(mutated_scene_text, st.booleans())
def test_a_mutated_scene_file_loads_or_says_why(workdir: Path, doc: Any, ascii_only: bool) -> None:
    path = workdir / "scene.json"
    # unescaped, a lone surrogate is written as it stands: bytes that are not UTF-8
    text = json.dumps(doc, ensure_ascii=ascii_only, indent=1)
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    check_scene_file(path)


@fuzz(700)
@given(st.sampled_from(SCENE_BYTES).flatmap(damaged))
def test_a_damaged_scene_file_loads_or_says_why(workdir: Path, data: bytes) -> None:
    path = workdir / "damaged.json"
    path.write_bytes(data)
    check_scene_file(path)


# --------------------------------------------------------------------------------------------
# Game TOML

GAME_DOC = tomllib.loads(GAME_FILE.read_text("utf-8"))
GAME_BYTES = GAME_FILE.read_bytes()

# What TOML can carry: no null, NaN and inf, dates and times, no lone surrogates.
TOML_KEYS = text_values(surrogates=False)
mutated_game_doc = mutated(
    GAME_DOC, values(null=False, non_finite=True, dates=True, surrogates=False), TOML_KEYS
)
mutated_game_text = mutated(
    GAME_DOC,
    values(null=False, non_finite=True, dates=True, surrogates=False, max_depth=200),
    TOML_KEYS,
)


def assert_sane_game(game: Game) -> None:
    """Finite millimetres, tags each family can print, unique ids, real shapes."""
    tally("loaded")
    assert finite(game.table_width, positive=True) and finite(game.table_depth, positive=True)
    assert game.grid_box is None or finite(game.grid_box, positive=True)
    corners = game.calibration.corners
    assert len(corners) >= 4
    assert len({(c.x, c.y) for c in corners}) == len(corners)
    assert all(finite(c.x) and finite(c.y) for c in corners)
    tags = game_tags(game)
    for tag in tags:
        assert tag.family in FAMILIES and tag.border_bits in BORDER_BITS
        assert 0 <= tag.id < family_size(tag.family)
        assert finite(tag.size, positive=True) and finite(tag.height, at_least_zero=True)
    ids = [u.id for u in game.units] + [b.id for u in game.units for b in u.bases]
    ids += [t.id for t in game.terrain]
    assert len(ids) == len(set(ids))
    for unit in game.units:
        assert unit.bases
        for base in unit.bases:
            assert finite(base.footprint.width, positive=True)
            assert finite(base.footprint.depth, positive=True)
            assert all(finite(v) for v in base.offset)
            assert 0.0 <= base.facing_offset < 360.0
            assert isinstance(base.figures, int) and base.figures >= 1
    for card in game.terrain:
        assert all(finite(x) and finite(y) for x, y in card.polygon)
        assert polygon_problem(list(card.polygon)) is None
    if game.camera is not None:
        assert all(finite(v) for row in game.camera.matrix for v in row)
        assert game.camera.matrix[0][0] > 0 and game.camera.matrix[1][1] > 0
        assert len(game.camera.distortion) in (0, 4, 5)
        assert all(finite(v) for v in game.camera.distortion)


def check_game_file(path: Path) -> None:
    try:
        game = load_game(path)
    except GameError as error:
        assert_one_line(error)
        assert str(path) in str(error)
    else:
        assert_sane_game(game)


def test_the_example_game_is_a_sane_starting_point() -> None:
    assert_sane_game(load_game(GAME_FILE))
    # the TOML writer of the fuzzers writes it back to the same game
    assert parse_game(tomllib.loads(to_toml(GAME_DOC))) == parse_game(GAME_DOC)


@fuzz(1000)
@given(mutated_game_doc)
def test_a_mutated_game_document_loads_or_says_why(doc: Any) -> None:
    try:
        game = parse_game(doc, "fuzz.toml")
    except GameError as error:
        assert_one_line(error)
    else:
        assert_sane_game(game)


@fuzz(300)
@given(renumbered(GAME_DOC))
def test_a_game_with_other_numbers_is_sane_or_says_why(doc: Any) -> None:
    try:
        game = parse_game(doc, "fuzz.toml")
    except GameError as error:
        assert_one_line(error)
    else:
        assert_sane_game(game)


@fuzz(300)
@given(mutated_game_text)
def test_a_mutated_game_file_loads_or_says_why(workdir: Path, doc: Any) -> None:
    path = workdir / "game.toml"
    path.write_text(to_toml(doc), encoding="utf-8")
    check_game_file(path)


@fuzz(600)
@given(damaged(GAME_BYTES))
def test_a_damaged_game_file_loads_or_says_why(workdir: Path, data: bytes) -> None:
    path = workdir / "damaged.toml"
    path.write_bytes(data)
    check_game_file(path)


# --------------------------------------------------------------------------------------------
# Calibration files (camera, table fit)

CAMERA = CameraModel.from_values(
    [[1000.0, 0.0, 960.0], [0.0, 1000.0, 540.0], [0.0, 0.0, 1.0]],
    [0.1, -0.05, 0.001, 0.002, 0.01],
    (1920, 1080),
    0.3,
)


def _saved(save: Callable[[Path, Any], None], value: Any, name: str) -> bytes:
    """The bytes `save` writes for `value` (what a real file looks like)."""
    with tempfile.TemporaryDirectory() as folder:
        target = Path(folder) / name
        save(target, value)
        return target.read_bytes()


def _fit() -> Any:
    # A 900 x 450 mm rectangle seen as an 1800 x 900 pixel one: 0.5 mm per pixel, exactly;
    # image y runs down the picture, table y away from the near edge (up the picture).
    image = np.array([[100.0, 100.0], [1900.0, 100.0], [1900.0, 1000.0], [100.0, 1000.0]])
    table = np.column_stack([(image[:, 0] - 100.0) * 0.5, (1000.0 - image[:, 1]) * 0.5])
    return fit_table_transform(image, table, lens=CAMERA)


CAMERA_BYTES = _saved(save_camera, CAMERA, "camera.json")
CAMERA_DOC = json.loads(CAMERA_BYTES)
FIT_BYTES = _saved(save_table_fit, _fit(), "fit.json")
FIT_DOC = json.loads(FIT_BYTES)

mutated_camera_doc = mutated(CAMERA_DOC, JSON_VALUES, JSON_KEYS)
mutated_camera_text = mutated(CAMERA_DOC, JSON_TEXT_VALUES, JSON_KEYS)
mutated_fit_doc = mutated(FIT_DOC, JSON_VALUES, JSON_KEYS, 2)


def assert_sane_camera(camera: CameraModel) -> None:
    """Finite pixels, positive focal lengths, 4 or 5 lens coefficients."""
    tally("loaded")
    matrix = np.array(camera.matrix)
    assert matrix.shape == (3, 3) and np.all(np.isfinite(matrix))
    assert camera.fx > 0 and camera.fy > 0
    assert len(camera.distortion) in (4, 5) and all(finite(v) for v in camera.distortion)
    if camera.image_size is not None:
        assert all(isinstance(v, int) and v > 0 for v in camera.image_size)
    if camera.reprojection_error_px is not None:
        assert finite(camera.reprojection_error_px, at_least_zero=True)


def check_camera_file(path: Path) -> None:
    try:
        camera = load_camera(path)
    except CalibrationError as error:
        assert_one_line(error)
        assert str(path) in str(error)
    else:
        assert_sane_camera(camera)


def test_the_saved_camera_and_fit_load_back() -> None:
    assert camera_from_dict(CAMERA_DOC) == CAMERA
    fit = table_fit_from_dict(FIT_DOC)
    # the four corners map exactly; residuals recomputed on loading are ~0 (the lens is undone
    # iteratively, to a few hundredths of a micrometre here)
    assert fit.residuals_mm == pytest.approx([0.0] * 4, abs=1e-3)


@fuzz(900)
@given(mutated_camera_doc)
def test_a_mutated_camera_document_loads_or_says_why(doc: Any) -> None:
    try:
        camera = camera_from_dict(doc, "camera.json")
    except CalibrationError as error:
        assert_one_line(error)
    else:
        assert_sane_camera(camera)


@fuzz(300)
@given(mutated_camera_text)
def test_a_mutated_camera_file_loads_or_says_why(workdir: Path, doc: Any) -> None:
    path = workdir / "camera.json"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    check_camera_file(path)


@fuzz(400)
@given(damaged(CAMERA_BYTES))
def test_a_damaged_camera_file_loads_or_says_why(workdir: Path, data: bytes) -> None:
    path = workdir / "damaged-camera.json"
    path.write_bytes(data)
    check_camera_file(path)


@fuzz(400)
@given(mutated_fit_doc)
def test_a_mutated_table_fit_loads_or_says_why(doc: Any) -> None:
    try:
        fit = table_fit_from_dict(doc, "fit.json")
    except CalibrationError as error:
        assert_one_line(error)
    else:
        tally("loaded")
        assert np.all(np.isfinite(fit.transform.image_to_table_matrix))
        assert np.all(np.isfinite(fit.transform.table_to_image_matrix))
        assert len(fit.image_points) == len(fit.table_points) >= 4


@fuzz(200)
@given(damaged(FIT_BYTES))
def test_a_damaged_table_fit_file_loads_or_says_why(workdir: Path, data: bytes) -> None:
    path = workdir / "damaged-fit.json"
    path.write_bytes(data)
    try:
        load_table_fit(path)
    except CalibrationError as error:
        assert_one_line(error)
        assert str(path) in str(error)


# --------------------------------------------------------------------------------------------
# A sample through the command line


def run_umpire(*args: str | Path) -> tuple[int, str, str]:
    """`umpire ARGS` in this process: exit status, stdout, stderr. An exception escaping
    `main` is what would have been a traceback."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = umpire_main([str(a) for a in args])
    return status, out.getvalue(), err.getvalue()


def assert_refused(status: int, stdout: str, stderr: str) -> None:
    assert status == 2, (status, stdout, stderr)
    assert len(stderr.splitlines()) == 1, stderr
    assert "Traceback" not in stderr
    assert stdout == ""


def _loads(loader: Callable[[Path], Any], path: Path) -> bool:
    try:
        loader(path)
    except (UmpireError, CalibrationError):
        return False
    return True


@fuzz(15)
@given(st.one_of(mutated_scene_text.map(lambda d: json.dumps(d).encode()), damaged(SCENE_BYTES[0])))
def test_umpire_resolve_refuses_a_broken_scene_in_one_line(workdir: Path, data: bytes) -> None:
    path = workdir / "cli-scene.json"
    path.write_bytes(data)
    status, stdout, stderr = run_umpire("resolve", path, "measure", "rifles", "zouaves")
    if not _loads(load_scene, path):
        assert_refused(status, stdout, stderr)
    else:  # a scene that loads: answered, or a question it cannot answer (an id now gone)
        assert status in (0, 2) and "Traceback" not in stderr


@fuzz(15)
@given(st.one_of(mutated_game_text.map(lambda d: to_toml(d).encode()), damaged(GAME_BYTES)))
def test_umpire_tags_and_scan_refuse_a_broken_game_in_one_line(workdir: Path, data: bytes) -> None:
    path = workdir / "cli-game.toml"
    path.write_bytes(data)
    if _loads(load_game, path):
        status, _, stderr = run_umpire("tags", "--game", path, "--rig")
        assert status == 0, stderr
        return
    assert_refused(*run_umpire("tags", "--game", path, "--rig"))
    assert_refused(*run_umpire("scan", workdir / "no-photo.png", "--game", path))


@fuzz(15)
@given(st.one_of(mutated_camera_text.map(lambda d: json.dumps(d).encode()), damaged(CAMERA_BYTES)))
def test_umpire_scan_refuses_a_broken_camera_in_one_line(workdir: Path, data: bytes) -> None:
    path = workdir / "cli-camera.json"
    path.write_bytes(data)
    # a camera that loads gets as far as the (missing) photo: refused too, in one line
    args = ("scan", workdir / "no-photo.png", "--game", GAME_FILE, "--camera", path)
    assert_refused(*run_umpire(*args))


@pytest.mark.parametrize(
    ("name", "data", "command"),
    [
        ("scene.json", b"\xef\xbb\xbf{" + b"[" * 100000, ("resolve", "{}", "measure", "a", "b")),
        ("game.toml", b"ruleset = " + b"[" * 5000, ("tags", "--game", "{}", "--rig")),
        (
            "camera.json",
            b'{"matrix": ' + b"[" * 100000,
            ("scan", "none.png", "--game", str(GAME_FILE), "--camera", "{}"),
        ),
    ],
    ids=["scene", "game", "camera"],
)
def test_the_real_command_exits_2_in_one_line(
    tmp_path: Path, name: str, data: bytes, command: tuple[str, ...]
) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    args = [a.replace("{}", str(path)) for a in command]
    done = subprocess.run(
        [sys.executable, "-m", "webui.cli", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.splitlines()) == 1, done.stderr
    assert str(path) in done.stderr


# --------------------------------------------------------------------------------------------
# Bugs the fuzzers found, one regression test each (input -> what used to happen).


def _scene_doc() -> dict[str, Any]:
    return copy.deepcopy(SCENE_DOCS[SCENE_FILES.index(REPO / "examples" / "skirmish.json")])


def _game_doc() -> dict[str, Any]:
    return copy.deepcopy(GAME_DOC)


def _scene_error(doc: Any) -> str:
    with pytest.raises(SceneError) as caught:
        read_scene(doc, "scene.json")
    assert_one_line(caught.value)
    return str(caught.value)


def _game_error(doc: Any) -> str:
    with pytest.raises(GameError) as caught:
        parse_game(doc, "game.toml")
    assert_one_line(caught.value)
    return str(caught.value)


def test_bug_a_vast_base_width_is_refused_not_measured_as_nan() -> None:
    # width 4e300 cm was accepted (finite, even in mm: 4e301) and `measure` then answered a
    # distance of NaN: the square of 4e301 is inf, and inf - inf is NaN.
    doc = _scene_doc()
    doc["units"][0]["bases"][0]["width"] = 4e300
    message = _scene_error(doc)
    assert "units[0].bases[0].width" in message and "1 km" in message


MM = {"mm": 1.0, "cm": 10.0, "in": 25.4}


@pytest.mark.parametrize(
    ("unit", "value", "refused"),
    [
        ("mm", 1e6, False),  # 1 km exactly: the longest length accepted
        ("cm", 100000.0, False),  # 100000 cm = 1e6 mm
        ("cm", 100001.0, True),  # 1000010 mm
        ("in", 39371.0, True),  # 39371 in * 25.4 = 1000023.4 mm
        ("in", 39370.0, False),  # 39370 in * 25.4 = 999998 mm
    ],
)
def test_bug_lengths_stop_at_one_kilometre_in_every_unit(
    unit: str, value: float, refused: bool
) -> None:
    doc = _scene_doc()
    doc["unit"] = unit
    doc["units"][0]["bases"][0]["x"] = value
    if refused:
        assert "units[0].bases[0].x" in _scene_error(doc)
    else:
        assert read_scene(doc).units[0].bases[0].x == pytest.approx(value * MM[unit])


def test_bug_a_vanishing_base_depth_is_refused_not_turned_into_nan() -> None:
    # depth 5e-324 cm (the smallest float) loaded, and the footprint outlines of sight lines
    # came out NaN ("invalid value encountered in subtract" in rules/geometry.py).
    doc = _scene_doc()
    doc["units"][1]["bases"][0]["depth"] = 5e-324
    message = _scene_error(doc)
    assert "units[1].bases[0].depth" in message and "0.1 mm" in message
    # 0.01 cm = 0.1 mm is the smallest size accepted
    doc["units"][1]["bases"][0]["depth"] = 0.01
    assert read_scene(doc).units[1].bases[0].footprint.depth == pytest.approx(0.1)


def test_bug_a_facing_just_below_zero_is_0_not_360() -> None:
    # -1e-20 % 360.0 rounds to 360.0 in floating point: the base faced 360, outside [0, 360).
    doc = _scene_doc()
    doc["units"][0]["bases"][0]["facing"] = -1e-20
    assert read_scene(doc).units[0].bases[0].facing == 0.0
    game = _game_doc()
    game["units"][0]["bases"][0]["facing_offset"] = -1e-20
    assert parse_game(game).units[0].bases[0].facing_offset == 0.0


def test_bug_a_key_with_a_newline_is_quoted_in_the_path() -> None:
    # A unit attribute "a\nb" holding a date printed the path `units[0].a` + newline + `b`:
    # a message of two lines.
    doc = _game_doc()
    doc["units"][0]["a\nb"] = dt.date(2000, 1, 1)
    assert "units[0]['a\\nb']: got datetime.date(2000, 1, 1)" in _game_error(doc)


def test_bug_a_corner_key_with_a_newline_is_quoted_in_the_path() -> None:
    doc = _game_doc()
    doc["calibration"]["corners"]["4\n"] = [90, 60]
    assert "calibration.corners['4\\n']: a corner is keyed by its tag id" in _game_error(doc)


def test_bug_unit_attributes_nested_too_deeply_are_a_game_error() -> None:
    # [[[...]]] 3000 deep under a unit's own key: RecursionError while copying it for the scene.
    doc = _game_doc()
    doc["units"][0]["notes"] = nested_lists(3000)
    assert "units[0].notes" + "[0]" * 32 + ": nested more than 32" in _game_error(doc)
    doc["units"][0]["notes"] = nested_lists(32)  # 32 arrays deep is fine
    assert parse_game(doc).units[0].attrs["notes"] == nested_lists(32)


def nested_lists(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("text", "says"),
    [
        # tomllib reads nested arrays recursively: RecursionError escaped load_game
        ("ruleset = " + "[" * 5000, "nested too deeply"),
        # Python refuses to read an integer of more than 4300 digits: a ValueError escaped
        ("ruleset = 1" + "0" * 5000, "Exceeds the limit (4300 digits)"),
    ],
    ids=["deep arrays", "5000 digits"],
)
def test_bug_a_game_file_python_cannot_read_is_a_game_error(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GameError, match=r"not a usable TOML document") as caught:
        load_game(path)
    assert says in str(caught.value) and str(path) in str(caught.value)
    assert_one_line(caught.value)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"matrix": ' + "[" * 100000, "nested too deeply"),  # RecursionError escaped
        ('{"matrix": 1' + "0" * 5000 + "}", "Exceeds the limit"),  # ValueError escaped
    ],
    ids=["deep arrays", "5000 digits"],
)
def test_bug_a_camera_file_python_cannot_read_is_a_calibration_error(
    tmp_path: Path, text: str, says: str
) -> None:
    path = tmp_path / "camera.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CalibrationError, match="not a usable JSON file") as caught:
        load_camera(path)
    assert says in str(caught.value)
    assert_one_line(caught.value)


@pytest.mark.parametrize(
    ("spoil", "key"),
    [
        (lambda d: d["matrix"][0].__setitem__(0, 10**400), "'matrix'"),
        (lambda d: d.__setitem__("distortion", [10**400, 0, 0, 0]), "'distortion'"),
        (lambda d: d.__setitem__("reprojection_error_px", 10**400), "'reprojection_error_px'"),
    ],
    ids=["matrix", "distortion", "reprojection error"],
)
def test_bug_an_integer_too_large_for_a_float_is_a_calibration_error(
    spoil: Callable[[dict[str, Any]], None], key: str
) -> None:
    # 10**400 is a valid JSON number; float(10**400) raised OverflowError out of the loader.
    doc = copy.deepcopy(CAMERA_DOC)
    spoil(doc)
    with pytest.raises(CalibrationError, match=key) as caught:
        camera_from_dict(doc, "camera.json")
    assert_one_line(caught.value)


def test_bug_a_table_fit_limit_too_large_for_a_float_is_a_calibration_error() -> None:
    doc = copy.deepcopy(FIT_DOC)
    doc["max_residual_mm"] = 10**400
    with pytest.raises(CalibrationError, match="'max_residual_mm' must be a positive number"):
        table_fit_from_dict(doc, "fit.json")


def test_bug_a_deeply_nested_camera_value_is_quoted_briefly() -> None:
    # The message quoted the whole value with repr(), which itself hit the recursion limit.
    doc = copy.deepcopy(CAMERA_DOC)
    doc["distortion"] = nested_lists(3000)
    with pytest.raises(CalibrationError, match="nested too deeply to show") as caught:
        camera_from_dict(doc, "camera.json")
    assert_one_line(caught.value)
    doc["distortion"] = ["x" * 500]  # a long value is cut to one short line
    with pytest.raises(CalibrationError) as caught:
        camera_from_dict(doc, "camera.json")
    assert "xxx..." in str(caught.value) and len(str(caught.value)) < 200


@pytest.mark.parametrize(
    ("read", "data"),
    [
        (load_scene, SCENE_FILES[0].read_bytes()),
        (load_game, GAME_BYTES),
        (load_camera, CAMERA_BYTES),
        (load_table_fit, FIT_BYTES),
    ],
    ids=["scene", "game", "camera", "table fit"],
)
def test_a_file_saved_with_a_bom_loads_like_the_same_file_without(
    tmp_path: Path, read: Callable[[Path], Any], data: bytes
) -> None:
    # Windows editors start UTF-8 files with a byte-order mark; the scene and camera loaders
    # answered "Unexpected UTF-8 BOM", the game loader "Invalid statement (line 1, column 1)".
    plain, marked = tmp_path / "plain", tmp_path / "marked"
    plain.write_bytes(data)
    marked.write_bytes(b"\xef\xbb\xbf" + data)
    first, second = read(plain), read(marked)
    if isinstance(first, Scene | Game):
        first, second = (dataclasses.replace(v, source="") for v in (first, second))
    if isinstance(first, TableFit):  # holds arrays: compare what was read
        assert np.array_equal(first.table_points, second.table_points)
        assert np.array_equal(
            first.transform.image_to_table_matrix, second.transform.image_to_table_matrix
        )
    else:
        assert first == second


# --------------------------------------------------------------------------------------------
# Issue 17: size caps, and any text the JSON parser accepts through the command's text output.


def _cli(argv: list[str]) -> tuple[int, str, str]:
    """`umpire ARGV` in-process, printing to strict UTF-8 streams as a terminal's are (a lone
    surrogate printed there raised UnicodeEncodeError: a traceback). Any exception fails."""
    raw_out, raw_err = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(raw_out, encoding="utf-8")
    err = io.TextIOWrapper(raw_err, encoding="utf-8")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = umpire_main(argv)
    out.flush()
    err.flush()
    return status, raw_out.getvalue().decode(), raw_err.getvalue().decode()


def _tiled_scene(bases: int) -> dict[str, Any]:
    """A skirmish-19c scene of `bases` bases in units of four, laid out in rows on a big table
    (the same unit kinds as the example)."""
    doc = _scene_doc()
    doc["table"] = {"width": 2000, "depth": 2000}
    doc["terrain"] = []
    template = doc["units"][0]
    units = []
    for n in range(0, bases, 4):
        unit = copy.deepcopy(template)
        unit["id"] = f"u{n}"
        unit["side"] = "british" if n % 8 == 0 else "french"
        unit["bases"] = []
        for k in range(min(4, bases - n)):
            base = copy.deepcopy(template["bases"][0])
            i = n + k
            base["id"] = f"b{i}"
            base["x"], base["y"] = 10 + (i % 40) * 45, 10 + (i // 40) * 45
            unit["bases"].append(base)
        units.append(unit)
    doc["units"] = units
    return doc


def test_a_scene_of_1200_bases_loads_and_one_over_the_cap_is_refused(tmp_path: Path) -> None:
    scene = read_scene(_tiled_scene(1200), "big.json")
    assert sum(len(u.bases) for u in scene.units) == 1200
    error = _scene_error(_tiled_scene(MAX_BASES + 1))
    assert f"too big: {MAX_BASES + 1} bases" in error and str(MAX_BASES) in error
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(_tiled_scene(150_000 // 100)))  # loads: under the cap
    status, out, err = _cli(["resolve", str(path), "measure", "u0", "u4"])
    assert status == 0 and "edge to edge" in out, err
    path.write_text(json.dumps(_tiled_scene(MAX_BASES + 4)))
    status, out, err = _cli(["resolve", str(path), "measure", "u0", "u4"])
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "too big" in err and str(path) in err


def test_terrain_with_too_many_corners_is_refused() -> None:
    doc = _scene_doc()
    ring = [[50 + 40 * math.cos(a / 1000), 50 + 40 * math.sin(a / 1000)] for a in range(6284)]
    doc["terrain"] = [{"id": f"hill-{i}", "kind": "woods", "polygon": ring} for i in range(4)]
    error = _scene_error(doc)
    assert "too big" in error and f"at most {MAX_TERRAIN_POINTS}" in error


def test_a_scene_or_game_file_too_large_is_refused_before_it_is_read(tmp_path: Path) -> None:
    scene = tmp_path / "scene.json"
    with scene.open("wb") as file:
        file.truncate(MAX_SCENE_BYTES + 1)  # sparse: no disk spent
    status, out, err = _cli(["resolve", str(scene), "measure", "a", "b"])
    assert status == 2 and out == "" and len(err.splitlines()) == 1, err
    assert "larger than 16 MiB" in err and str(scene) in err
    game = tmp_path / "game.toml"
    with game.open("wb") as file:
        file.truncate(MAX_GAME_BYTES + 1)
    with pytest.raises(GameError) as caught:
        load_game(game)
    assert_one_line(caught.value)
    assert "larger than 4 MiB" in str(caught.value)


def test_a_game_of_too_many_bases_is_refused() -> None:
    doc = _game_doc()
    unit = doc["units"][0]
    unit["bases"] = [copy.deepcopy(unit["bases"][0]) for _ in range(MAX_BASES + 1)]
    others = sum(len(u["bases"]) for u in doc["units"][1:])
    error = _game_error(doc)
    assert f"too big: {MAX_BASES + 1 + others} bases" in error
    assert f"at most {MAX_BASES}" in error


SURROGATE_SCENES = {
    "unit id": ('"rifles"', '"ri\\ud800fles"'),
    "base id": ('"rifles-1"', '"rifles-\\udfff"'),
    "side": ('"british"', '"brit\\ud83dish"'),
    "a key": ('"commanded"', '"comm\\udc00anded"'),
}


@pytest.mark.parametrize("where", sorted(SURROGATE_SCENES))
def test_bug_a_lone_surrogate_is_refused_not_a_traceback_in_the_text_output(
    tmp_path: Path, where: str
) -> None:
    """`umpire resolve` printed a scene's id holding "\\ud800" and ended in UnicodeEncodeError."""
    old, new = SURROGATE_SCENES[where]
    text = (REPO / "examples" / "skirmish.json").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "scene.json"
    path.write_text(text.replace(old, new, 1), encoding="ascii")
    for argv in (["measure", "zouaves", "hussars"], ["suggest"]):
        status, out, err = _cli(["resolve", str(path), *argv])
        assert status == 2 and out == "" and len(err.splitlines()) == 1, err
        assert "lone surrogate" in err and "\\ud" in err


ACCEPTED_ODDITIES = [
    '"width": 1e999',  # a float too large: infinity
    '"width": -1e999',
    '"width": ' + "9" * 5000,  # an integer of more digits than Python converts
    '"width": ' + "9" * 400,  # a finite integer no float holds
    '"width": NaN',
    '"width": Infinity',
    '"width": -Infinity',
    '"width": ' + "[" * 5000 + "]" * 5000,  # deeply nested
    '"width": 180, "deep": ' + "[" * 150 + "]" * 150,  # nested, beside a good width
    '"width": 180, "deep": ' + '{"a": ' * 150 + "1" + "}" * 150,
    '"width": 180, "\\ud800": 1',
    '"width": 180, "note": "\\udfff\\ud800"',
]


@pytest.mark.parametrize("oddity", ACCEPTED_ODDITIES, ids=range(len(ACCEPTED_ODDITIES)))
def test_any_text_the_json_parser_accepts_is_answered_or_refused_in_one_line(
    tmp_path: Path, oddity: str
) -> None:
    text = (REPO / "examples" / "skirmish.json").read_text(encoding="utf-8")
    text = text.replace('"width": 180', oddity, 1)
    assert oddity in text
    path = tmp_path / "scene.json"
    path.write_text(text, encoding="utf-8")
    for argv in (["measure", "zouaves", "hussars"], ["suggest"], ["measure", "x", "y", "--json"]):
        status, out, err = _cli(["resolve", str(path), *argv])
        assert status in (0, 2), (status, err)
        assert "Traceback" not in err
        if status == 2:
            assert out == "" and len(err.splitlines()) == 1, err


@fuzz(120)
@given(mutated_scene_text)
def test_a_mutated_scene_is_answered_or_refused_by_the_command_in_one_line(
    workdir: Path, doc: Any
) -> None:
    """Any scene JSON text (keys and values of any kind, lone surrogates escaped as JSON allows)
    through `umpire resolve`'s text output: an answer, or exit 2 and one line."""
    path = workdir / "command.json"
    path.write_text(json.dumps(doc, ensure_ascii=True), encoding="ascii")
    status, out, err = _cli(["resolve", str(path), "measure", "rifles", "zouaves"])
    assert status in (0, 2), err
    if status == 2:
        assert out == "" and len(err.splitlines()) == 1, err
