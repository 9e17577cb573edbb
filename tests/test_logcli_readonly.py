"""`umpire log` only reads (webui/logcli.py, `GameLog(path, read_only=True)` in webui/gamelog.py):
it opens the log with SQLite's `mode=ro`, never creates a missing log, never sets up, migrates or
otherwise writes an empty, older or foreign file (exit 2, one line naming the file), says so
when another process holds the log locked, and reads the log of a running server (WAL mode,
its writer still open), in-process and as a real command in a subprocess.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from webui import gamelog
from webui.cli import main
from webui.gamelog import APPLICATION_ID, LOG_FILE, GameLog, LogError

ROOT = Path(__file__).resolve().parent.parent
SCENE = {"format": "umpire-scene/1", "unit": "cm", "units": []}
"""A scene document (the log stores it as it is; it does not read it)."""


def umpire_log(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """`umpire log ARGV` in-process: exit status, stdout, stderr."""
    status = main(["log", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys: pytest.CaptureFixture[str], data: Path, *fragments: str) -> str:
    """`umpire log --data DATA` exits 2 with one line on stderr holding every fragment."""
    status, out, err = umpire_log(capsys, "--data", str(data))
    assert status == 2, (out, err)
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err
    return err


def files_in(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, GameLog, int]]:
    """A data folder whose log a running server holds open: one game with one scene written
    (WAL mode: the rows are in the -wal file, not yet in the main file)."""
    data = tmp_path / "data"
    writer = GameLog(data / LOG_FILE)
    game = writer.start_game("skirmish-19c", "demo", started=1000.0)
    writer.record_scene(game, 1, "command", 3, SCENE, created=1001.0)
    yield data, writer, game
    writer.close()


# --------------------------------------------------------------------------------- never written


def test_a_missing_log_is_reported_and_never_created(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no such folder"
    err = refused(capsys, missing, "no game log at", str(missing / LOG_FILE), "--data")
    assert "UMPIRE_DATA" in err
    assert not missing.exists()
    empty = tmp_path / "empty folder"
    empty.mkdir()
    refused(capsys, empty, "no game log at", str(empty / LOG_FILE), "--data")
    assert files_in(empty) == {}


def test_an_empty_file_is_not_a_log_and_stays_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / LOG_FILE).write_bytes(b"")
    refused(capsys, tmp_path, str(tmp_path / LOG_FILE), "not an Umpire game log", "empty")
    assert files_in(tmp_path) == {LOG_FILE: b""}  # no schema, no -wal, no -journal


def test_an_older_log_is_not_migrated(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / LOG_FILE
    older = sqlite3.connect(path)  # ours (application_id), from before the first schema step
    older.execute(f"PRAGMA application_id={APPLICATION_ID}")
    older.execute("CREATE TABLE notes (text TEXT)")
    older.commit()
    older.close()
    before = files_in(tmp_path)
    refused(capsys, tmp_path, str(path), "older Umpire", "umpire serve")
    assert files_in(tmp_path) == before


@pytest.mark.parametrize("kind", ["text", "other program"])
def test_a_foreign_file_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str
) -> None:
    path = tmp_path / LOG_FILE
    if kind == "text":
        path.write_text("these are my notes, not a database\n" * 200)
        what = "not a readable Umpire game log"
    else:
        other = sqlite3.connect(path)
        other.execute("CREATE TABLE accounts (name TEXT, balance REAL)")
        other.commit()
        other.close()
        what = "another program, not an Umpire game log"
    before = files_in(tmp_path)
    refused(capsys, tmp_path, str(path), what)
    assert files_in(tmp_path) == before


def test_a_read_only_log_refuses_every_write(served: tuple[Path, GameLog, int]) -> None:
    data, _, game = served
    with GameLog(data / LOG_FILE, read_only=True) as reader:
        assert [g["id"] for g in reader.games()] == [game]
        with pytest.raises(LogError, match="read-only"):
            reader.start_game("skirmish-19c", "demo")
        with pytest.raises(LogError, match="read-only"):
            reader.end_game(game)
    with pytest.raises(LogError, match="no game log at"):
        GameLog(data / "elsewhere.sqlite", read_only=True)
    assert not (data / "elsewhere.sqlite").exists()


# --------------------------------------------------------------------------------- busy, running


def test_a_locked_log_is_reported_busy_not_unreadable(
    served: tuple[Path, GameLog, int],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data, writer, _ = served
    writer.close()
    monkeypatch.setattr(gamelog, "READ_BUSY_TIMEOUT_S", 0.05)  # the wait, not what is said
    holder = sqlite3.connect(data / LOG_FILE, isolation_level=None)
    try:  # another program holding the whole file (as `sqlite3`'s shell can)
        holder.execute("PRAGMA locking_mode=EXCLUSIVE")
        holder.execute("BEGIN EXCLUSIVE")
        err = refused(capsys, data, str(data / LOG_FILE), "busy", "another process", "try again")
        assert "not a readable" not in err
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    status, out, _ = umpire_log(capsys, "--data", str(data), "--json")
    assert status == 0 and len(json.loads(out)) == 1  # free again: read as before


def test_the_log_of_a_running_server_is_read_while_it_writes(
    served: tuple[Path, GameLog, int], capsys: pytest.CaptureFixture[str]
) -> None:
    data, writer, game = served
    status, out, err = umpire_log(capsys, "--data", str(data), "--json")
    assert status == 0, err
    [listed] = json.loads(out)
    assert (listed["id"], listed["turns"], listed["scenes"], listed["source"]) == (
        game,
        1,
        1,
        "demo",
    )
    second = writer.start_game("skirmish-19c", "camera:0")  # the server goes on writing
    status, out, err = umpire_log(capsys, str(second), "--json", "--data", str(data))
    assert status == 0, err
    assert json.loads(out)["game"]["id"] == second
    writer.record_scene(game, 2, "command", 9, SCENE)  # and its writes are not blocked


def test_umpire_log_in_another_process_reads_a_running_servers_log(
    served: tuple[Path, GameLog, int],
) -> None:
    data, writer, game = served
    done = subprocess.run(
        [sys.executable, "-m", "webui.cli", "log", str(game), "--json", "--data", str(data)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    exported = json.loads(done.stdout)
    assert exported["game"]["id"] == game and exported["game"]["started"] == 1000.0
    assert [s["doc"] for s in exported["scenes"]] == [SCENE]
    assert writer.start_game("skirmish-19c", "demo") == game + 1  # the writer still writes


def test_a_data_folder_with_uri_characters_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The read-only opener goes through an SQLite URI: '?', '#' and '%' in the path are quoted.
    data = tmp_path / "club night #2 ?mode=rw %41"
    with GameLog(data / LOG_FILE) as writer:
        writer.start_game("skirmish-19c", "demo")
    before = files_in(data)
    status, out, err = umpire_log(capsys, "--data", str(data), "--json")
    assert status == 0, err
    assert [g["id"] for g in json.loads(out)] == [1]
    assert files_in(data)[LOG_FILE] == before[LOG_FILE]
