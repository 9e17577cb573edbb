"""`umpire log`: the games in the game log, and one game exported as JSON.

    umpire log                      every game: id, started, ruleset, turns, resolutions, results,
                                    steps (changes of state), ended or still playing
    umpire log GAME --json          everything logged of game GAME, as JSON on stdout
    umpire log GAME --out FILE      the same, written to FILE
    umpire log --data DIR           the log of another data folder (default: $UMPIRE_DATA, else
                                    ~/.local/share/umpire)

The log is only read, never written: it is opened read-only (SQLite's `mode=ro`), so a data
folder without a log is reported, never given an empty one; an empty, older or foreign file is
refused as it is, never set up or migrated; and a log held locked by another process is
reported busy. A running server's log (WAL mode) is read while the server writes it.
Errors are `LogError`s (an `UmpireError`): `umpire` prints one line and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .gamelog import GameLog

# The game log and the app (Flask) are imported when `umpire log` runs, not when the `umpire`
# command line is built: `umpire resolve` never loads them.

__all__ = ["add_log_parser", "log_path", "run_log"]


def add_log_parser(commands: Any) -> argparse.ArgumentParser:
    """Register `umpire log` on the subcommands of the `umpire` parser."""
    parser: argparse.ArgumentParser = commands.add_parser(
        "log",
        help="list the logged games, or export one as JSON",
        description="List the games in the game log, or export one game (every scene, "
        "resolution, result and snapshot) as JSON.",
    )
    parser.add_argument("game", metavar="GAME", nargs="?", type=str, help="a game id to export")
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--out", metavar="FILE.json", help="write the export to this file")
    parser.add_argument(
        "--data",
        metavar="DIR",
        help="the data folder holding umpire.sqlite (default: $UMPIRE_DATA, else "
        "~/.local/share/umpire)",
    )
    parser.set_defaults(run=run_log)
    return parser


def log_path(data: str | Path | None) -> Path:
    """The log file of a data folder (the default folder when `data` is None)."""
    from .app import default_data_dir
    from .gamelog import LOG_FILE

    folder = Path(data).expanduser() if data else default_data_dir()
    return folder / LOG_FILE


def _game_id(text: str, log: GameLog) -> int:
    from .gamelog import LogError

    try:
        ident = int(text)
    except ValueError:
        ident = -1
    if ident < 1:
        known = ", ".join(str(g["id"]) for g in log.games()) or "none yet"
        raise LogError(f"game {text!r} is not a game id; the log's games are {known}")
    return ident


def _when(stamp: float | None) -> str:
    return "-" if stamp is None else time.strftime("%Y-%m-%d %H:%M", time.localtime(stamp))


def run_log(opts: argparse.Namespace) -> int:
    """`umpire log [GAME] [--json] [--out FILE] [--data DIR]`."""
    from .gamelog import GameLog, LogError

    path = log_path(opts.data)
    with GameLog(path, read_only=True) as log:  # a missing log is refused, never created
        if opts.game is None:
            if opts.out:
                raise LogError("--out writes one game's export: give the game id (umpire log GAME)")
            games = log.games()
            if opts.json:
                print(json.dumps(games, indent=2))
            else:
                _print_games(games, path)
            return 0
        export = log.export(_game_id(opts.game, log))
    text = json.dumps(export, indent=2)
    if opts.out:
        try:
            Path(opts.out).write_text(text + "\n", encoding="utf-8")
        except OSError as error:
            raise LogError(f"cannot write {opts.out!r} ({error.strerror})") from None
        print(f"game {export['game']['id']} written to {opts.out}", file=sys.stderr)
    if opts.json or not opts.out:
        print(text)
    return 0


def _print_games(games: list[dict[str, Any]], path: Path) -> None:
    if not games:
        print(f"no games in {path} yet")
        return
    print(
        f"{'game':>5}  {'started':<16}  {'ruleset':<22} turns  resolutions  results  steps  "
        "state     source"
    )
    for g in games:
        print(
            f"{g['id']:>5}  {_when(g['started']):<16}  {g['ruleset']:<22} {g['turns']:>5}  "
            f"{g['resolutions']:>11}  {g['results']:>7}  {g.get('steps', 0):>5}  "
            f"{'ended' if g['ended'] is not None else 'playing':<8}  {g['source']}"
        )
