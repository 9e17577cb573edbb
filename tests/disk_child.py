"""The child of tests/test_disk.py, run as `python -m tests.disk_child MODE MOUNT PHOTO` inside
`unshare -Urm` (a user and mount namespace: root there, nobody's root outside), where MOUNT is a
small tmpfs of its own: a real file system that fills up, or that is made read-only, without
root on the machine. It prints one JSON document of what it saw; the test judges it.

- `full`: the app's data folder (game log, snapshots) on the tmpfs; a filler file takes every
  free byte; every write route is asked, then the filler goes and each is asked again.
- `readonly`: a game log written on the tmpfs, the tmpfs remounted read-only; `umpire log` and
  `umpire serve --replay` read it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TOKEN = "test-csrf-token"
CSRF = {"X-CSRF-Token": TOKEN}
GAME = Path(__file__).resolve().parent.parent / "examples" / "games" / "skirmish.toml"


def fill(mount: Path) -> Path:
    """A file taking every free byte of `mount` (writes until ENOSPC)."""
    filler = mount / "filler"
    with filler.open("wb", buffering=0) as file:
        for size in (65536, 4096, 1):  # then the last bytes of a block
            with contextlib.suppress(OSError):
                while True:
                    file.write(b"\0" * size)
    return filler


def full(mount: Path, photo: Path) -> dict[str, Any]:
    from vision.game import load_game
    from vision.sources import open_source
    from webui.app import create_app
    from webui.live import Live

    tracker = Live(open_source(str(photo)), load_game(GAME)).start()
    deadline = time.monotonic() + 90
    state = tracker.state
    while state.scene is None and time.monotonic() < deadline:
        state = tracker.wait_for_version(state.version, 1.0)
    data = mount / "data"
    app = create_app({"TESTING": True, "DATA_DIR": str(data), "CSRF_TOKEN": TOKEN}, live=tracker)
    client = app.test_client()
    seen: dict[str, Any] = {}

    def listed() -> list[str]:
        folder = data / "snapshots"
        return sorted(os.listdir(folder)) if folder.exists() else []

    def post(route: str, body: Any) -> dict[str, Any]:
        response = client.post(route, headers=CSRF, json=body)
        return {
            "status": response.status_code,
            "json": response.get_json(silent=True),
            "text": response.get_data(as_text=True)[:400],
        }

    question = {"action": "measure", "args": ["rifles", "hussars"]}
    asked = post("/api/resolve", question)
    resolution = asked["json"]["log_id"]
    seen["moved"] = post("/api/phase", {"phase": "shoot-a"})  # so that "command" is a new turn
    seen["state_before"] = client.get("/api/state").get_json()
    seen["snapshots_before"] = listed()

    filler = fill(mount)
    writes: dict[str, tuple[str, dict[str, Any]]] = {
        "snapshot": ("/api/snapshot", {}),
        "snapshot_question": ("/api/snapshot", question),
        "resolve": ("/api/resolve", question),
        "phase": ("/api/phase", {"phase": "melee"}),
        "new_turn": ("/api/phase", {"phase": "command"}),
        "state": ("/api/state", {"base": "zouaves-2", "set": {"removed": True}}),
        "override": (
            "/api/results",
            {
                "resolution": resolution,
                "decision": "override",
                "changes": [{"base": "zouaves-3", "field": "removed", "value": True}],
            },
        ),
        "game_new": ("/api/game/new", {}),
    }
    seen["full"] = {name: post(route, body) for name, (route, body) in writes.items()}
    seen["state_full"] = client.get("/api/state").get_json()
    seen["files_full"] = listed()
    seen["log_full"] = client.get("/api/log").get_json()

    filler.unlink()
    seen["freed"] = {name: post(route, body) for name, (route, body) in writes.items()}
    seen["state_freed"] = client.get("/api/state").get_json()
    seen["files_freed"] = sorted(os.listdir(data / "snapshots"))
    seen["listed_freed"] = client.get("/api/snapshots").get_json()

    # The one write a full tmpfs does not reach in order: the files saved, the log's row not.
    from webui.gamelog import GameLog, LogError

    def no_room(self: GameLog, *args: Any, **kwargs: Any) -> None:
        raise LogError("game log: cannot be written (database or disk is full)")

    GameLog.record_snapshot = no_room  # type: ignore[method-assign]
    seen["snapshot_unlogged"] = post("/api/snapshot", {})
    seen["files_unlogged"] = sorted(os.listdir(data / "snapshots"))
    tracker.stop()
    return seen


def readonly(mount: Path) -> dict[str, Any]:
    from webui.gamelog import LOG_FILE, GameLog

    data = mount / "data"
    log = GameLog(data / LOG_FILE)
    game = log.start_game("skirmish-19c", "demo", GAME.read_text(), key="demo")
    scene = {"format": "umpire-scene/1", "unit": "cm", "units": []}
    log.record_scene(game, 1, "command", 3, scene, created=1001.0)
    log.close()
    subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in data.iterdir()}
    seen: dict[str, Any] = {"files": sorted(before)}
    umpire = [sys.executable, "-m", "webui.cli"]
    done = subprocess.run(
        [*umpire, "log", "--data", str(data), "--json"], capture_output=True, text=True, timeout=60
    )
    seen["log"] = {"status": done.returncode, "out": done.stdout, "err": done.stderr}
    serve = subprocess.Popen(
        [*umpire, "serve", "--replay", str(game), "--port", "0"],
        env={**os.environ, "UMPIRE_DATA": str(data)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert serve.stdout is not None
    lines: list[str] = []
    deadline = time.monotonic() + 90
    address = None
    while time.monotonic() < deadline:
        line = serve.stdout.readline()
        if not line:
            break
        lines.append(line)
        if "http://" in line and address is None:
            address = line[line.index("http://") :].split()[0]
            break
    fetched: dict[str, Any] = {}
    if address is not None:
        from urllib.error import HTTPError
        from urllib.request import urlopen

        def get(route: str) -> int:
            try:
                with urlopen(address.rstrip("/") + route, timeout=30) as response:
                    return int(response.status)
            except HTTPError as error:
                return int(error.code)

        until = time.monotonic() + 90
        while get("/api/scene") != 200 and time.monotonic() < until:
            time.sleep(0.5)  # the first frame scanned
        for route in ("/", "/api/status", "/api/log", "/api/state", "/api/scene", "/api/map.svg"):
            fetched[route] = get(route)
    serve.terminate()
    try:
        serve.wait(timeout=30)
    except subprocess.TimeoutExpired:
        serve.kill()
    lines.append(serve.stdout.read())
    seen["serve"] = {"status": serve.returncode, "out": "".join(lines), "fetched": fetched}
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in data.iterdir()}
    seen["unchanged"] = after == before
    return seen


def main() -> None:
    mode, mount, *rest = sys.argv[1:]
    sys.stdout = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8")
    seen = full(Path(mount), Path(rest[0])) if mode == "full" else readonly(Path(mount))
    print("RESULT " + json.dumps(seen))


if __name__ == "__main__":
    main()
