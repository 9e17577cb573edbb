"""What many test files share: the `umpire` command run in-process (`webui.cli.main(argv)`, the
same parser and exit codes as the installed command, without a new interpreter's start-up), and
the repository's paths. A few smoke tests still run the installed command in a subprocess."""

from __future__ import annotations

import contextlib
import io
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from vision.game import Game
    from webui.live import Live

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


@dataclass(frozen=True)
class Ran:
    """What a run of the command gave: as `subprocess.CompletedProcess` names it."""

    returncode: int
    stdout: str
    stderr: str


@contextlib.contextmanager
def _inside(folder: Path | None) -> Iterator[None]:
    before = Path.cwd()
    if folder is not None:
        os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def run_umpire(*args: str | Path, cwd: Path | None = None) -> Ran:
    """`umpire ARGS` run in-process from the folder `cwd`: its exit status (argparse's own
    exit 2 included), and what it wrote to stdout and stderr."""
    from webui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _inside(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as done:  # argparse refusing the arguments, or --help
            code = done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
    return Ran(code, out.getvalue(), err.getvalue())


@pytest.fixture
def umpire(tmp_path: Path) -> Callable[..., Ran]:
    """`umpire(*args)`: the command run in-process from a fresh folder (not the repository)."""
    return lambda *args: run_umpire(*args, cwd=tmp_path)


@contextlib.contextmanager
def live_over_photo(game: Game, layout: Mapping[str, Any], folder: Path) -> Iterator[Live]:
    """The real tracker (`Live`) over one clean 1280x720 photo of `layout` (a scene document of
    the game's table), written to `folder`, once it has scanned it; stopped on leaving."""
    import cv2

    from vision.render import Effects, camera_for_table, render
    from vision.sources import open_source
    from vision.synthetic import table_spec
    from webui.live import Live

    spec = table_spec(game, layout)
    photo = folder / "table.png"
    cv2.imwrite(str(photo), render(spec, camera_for_table(spec, 1280, 720), Effects()).image)
    tracker = Live(open_source(str(photo)), game).start()
    try:
        deadline = time.monotonic() + 90
        state = tracker.state
        while state.scene is None and time.monotonic() < deadline:
            state = tracker.wait_for_version(state.version, 1.0)
        assert state.scene is not None, state.status
        yield tracker
    finally:
        tracker.stop()
