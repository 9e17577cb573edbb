"""Full disks and read-only media, on real file systems: each test runs tests/disk_child.py in
a user and mount namespace of its own (`unshare -Urm`, no root needed) over a small tmpfs that
fills up or is remounted read-only. Skipped, saying why, where the kernel allows no user
namespaces.

Full disk: every write route answers 503 saying the disk is full, and nothing is half-written
(no snapshot PNG without its JSON) or applied that was not saved (phase, a new turn, state set
by hand, a result's changes, a new game); once space returns, every write succeeds.

Read-only media: `umpire log` and `umpire serve --replay` read a log there and write nothing.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import cv2
import pytest

from vision.game import load_game
from vision.render import Effects, camera_for_table, render
from vision.synthetic import table_spec

ROOT = Path(__file__).resolve().parent.parent
GAME = ROOT / "examples" / "games" / "skirmish.toml"
LAYOUT = ROOT / "examples" / "skirmish.json"


def _namespaces() -> str | None:
    """Why user namespaces with a tmpfs cannot be had here (None: they can)."""
    if shutil.which("unshare") is None:
        return "no unshare command"
    done = subprocess.run(
        ["unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=64k none /mnt"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    return None if done.returncode == 0 else f"no user namespaces here ({done.stderr.strip()})"


NO_NAMESPACES = _namespaces()
needs_namespaces = pytest.mark.skipif(NO_NAMESPACES is not None, reason=str(NO_NAMESPACES))


def in_namespace(tmp_path: Path, size: str, *args: str) -> dict[str, Any]:
    """`python -m tests.disk_child ARGS` on a fresh tmpfs of `size`; the JSON it printed."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    script = 'mount -t tmpfs -o size="$1" umpire-test "$2" && shift 2 && exec "$@"'
    done = subprocess.run(
        [
            *("unshare", "-Urm", "sh", "-c", script, "sh", size, str(mount)),
            *(sys.executable, "-m", "tests.disk_child", args[0], str(mount), *args[1:]),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert done.returncode == 0 and lines, done.stdout[-3000:] + done.stderr[-3000:]
    seen: dict[str, Any] = json.loads(lines[-1].removeprefix("RESULT "))
    return seen


def _photo(folder: Path) -> Path:
    game = load_game(GAME)
    spec = table_spec(game, json.loads(LAYOUT.read_text()))
    photo = folder / "table.png"
    cv2.imwrite(str(photo), render(spec, camera_for_table(spec, 1280, 720), Effects()).image)
    return photo


def _same_game(a: dict[str, Any], b: dict[str, Any]) -> bool:
    keys = ("game", "ended", "turn", "phase", "units", "bases", "removed", "held", "initiative")
    return all(a[k] == b[k] for k in keys)


@needs_namespaces
def test_a_full_disk_answers_503_keeps_nothing_half_done_and_recovers(tmp_path: Path) -> None:
    photo = _photo(tmp_path)
    seen = in_namespace(tmp_path, "8m", "full", str(photo))
    assert seen["moved"]["status"] == 200

    full = seen["full"]
    for name in ("snapshot", "snapshot_question", "phase", "new_turn", "state", "override"):
        answer = full[name]
        assert answer["status"] == 503, (name, answer)
        assert "Traceback" not in answer["text"]
        error = answer["json"]["error"]
        assert "full" in error, (name, error)
    assert "the data folder's disk is full" in full["snapshot"]["json"]["error"]
    assert full["game_new"]["status"] == 503
    # A question may be logged on a full disk (SQLite reuses the log's own free pages): then
    # it says so with its row's id, else it is a 503 like the others.
    resolve = full["resolve"]
    assert resolve["status"] == 503 or isinstance(resolve["json"]["log_id"], int), resolve

    # Nothing applied that was not saved; no snapshot file at all.
    assert _same_game(seen["state_full"], seen["state_before"])
    assert seen["files_full"] == seen["snapshots_before"] == []

    freed = seen["freed"]
    for name, status in {
        "snapshot": 201,
        "snapshot_question": 201,
        "resolve": 200,
        "phase": 200,
        "new_turn": 200,
        "state": 200,
        "override": 201,
        "game_new": 201,
    }.items():
        assert freed[name]["status"] == status, (name, freed[name])
    assert freed["new_turn"]["json"]["turn"] == 2
    assert len(seen["listed_freed"]) == 2
    assert len(seen["files_freed"]) == 4  # two PNGs, two JSONs

    # The files written, the log's row refused: neither file stays.
    unlogged = seen["snapshot_unlogged"]
    assert unlogged["status"] == 503 and "nothing of it was kept" in unlogged["json"]["error"]
    assert seen["files_unlogged"] == seen["files_freed"]


@needs_namespaces
def test_a_log_on_read_only_media_is_read_and_replayed_and_nothing_written(
    tmp_path: Path,
) -> None:
    """A log written, its file system remounted read-only: `umpire log` lists its game (SQLite's
    `immutable=1`), `umpire serve --replay` plays it, says it logs nothing and serves every read
    route; the file's bytes and modification time are unchanged."""
    seen = in_namespace(tmp_path, "8m", "readonly")
    assert seen["files"] == ["umpire.sqlite"]
    assert seen["log"]["status"] == 0, seen["log"]["err"]
    listed = json.loads(seen["log"]["out"])
    assert [g["id"] for g in listed] == [1] and listed[0]["scenes"] == 1
    serve = seen["serve"]
    assert "a replay logs nothing" in serve["out"], serve["out"]
    assert "Traceback" not in serve["out"]
    assert set(serve["fetched"].values()) == {200}, serve["fetched"]
    assert seen["unchanged"]
