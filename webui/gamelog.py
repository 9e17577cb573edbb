"""The game log: every turn's scene, every resolution shown, every result the table confirmed or
overrode and every dispute snapshot of a game, in one SQLite file (`DATA_DIR/umpire.sqlite`).

`GameLog(path)` opens (or creates) the file with the standard library's `sqlite3`:

- WAL mode (`PRAGMA journal_mode=WAL`): the page's readers never wait for a writer, and a commit
  appends to the `-wal` file instead of rewriting pages in place, so a crash mid-write leaves
  the last committed state intact (SQLite rolls back a half-written transaction on reopening).
- `PRAGMA synchronous=FULL`: every commit is fsynced to the WAL before `commit()` returns. With
  the WAL default (NORMAL) a `kill -9` loses nothing either, but a power cut may lose the last
  commits; a result the players confirmed must survive both, so we pay one fsync per commit.
  The log writes a few rows a minute of play (repeated answers are deduplicated), so one mode
  for every table is simpler than switching per write, and an fsync costs milliseconds.
- One connection shared by all threads behind a lock (Flask serves each request on its own
  thread): SQLite takes one writer at a time anyway, and our transactions are a few rows.
- The schema carries `PRAGMA application_id` (ours: "UMPR") and `user_version` (its version;
  `MIGRATIONS` bring an older file up to date). A file that is not an SQLite database, an SQLite
  database of another program, a log written by a newer Umpire or a damaged log raises
  `LogError` naming the file; such a file is never written to, let alone deleted.

`GameLog(path, read_only=True)` is the reader of `umpire log`: SQLite's `mode=ro`, so it never
creates, sets up, migrates or writes the file (an empty or older file is refused, not set up),
and it reads a running server's log beside the server (WAL: readers do not wait for a writer).

`install_log(app, log)` hands a log to the web app (`app.extensions["umpire_log"]`);
`current_log()` finds it, or opens `DATA_DIR/umpire.sqlite` on first use. Never imports cv2 or
vision: the log stores JSON documents and does not know what they mean.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Final

from flask import Flask, current_app

from rules.errors import UmpireError

LOG_FILE: Final = "umpire.sqlite"
"""The log's file name inside the data folder."""
APPLICATION_ID: Final = 0x554D5052
"""`PRAGMA application_id` of our files: "UMPR" in ASCII."""
DECISIONS: Final = ("confirm", "override")
"""What the table may do with a resolution."""
STEP_KINDS: Final = ("set", "outcome", "override", "phase", "undo")
"""How a change of state came about: set by hand, a confirmed result, an override, a change of
phase (and of turn), or an undo of an earlier step."""
EXPORT_FORMAT: Final = "umpire-log/1"
BUSY_TIMEOUT_MS: Final = 5000
"""How long a write waits for another process holding the file (`umpire log` reading it)."""
READ_BUSY_TIMEOUT_S: Final = 2.0
"""How long a read-only opener waits for another process holding the file locked before it
says the log is busy."""

MIGRATIONS: Final[tuple[str, ...]] = (
    # Version 1: the first schema.
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        started REAL NOT NULL,
        ruleset TEXT NOT NULL,
        source TEXT NOT NULL,
        game_toml TEXT,
        ended REAL
    );
    CREATE TABLE scenes (
        id INTEGER PRIMARY KEY,
        game INTEGER NOT NULL REFERENCES games(id),
        turn INTEGER NOT NULL,
        phase TEXT,
        frame INTEGER,
        created REAL NOT NULL,
        doc TEXT NOT NULL,
        sha256 TEXT NOT NULL,
        UNIQUE (game, turn, sha256)
    );
    CREATE TABLE resolutions (
        id INTEGER PRIMARY KEY,
        game INTEGER NOT NULL REFERENCES games(id),
        scene INTEGER NOT NULL REFERENCES scenes(id),
        action TEXT NOT NULL,
        args TEXT NOT NULL,
        answer TEXT NOT NULL,
        created REAL NOT NULL
    );
    CREATE INDEX resolutions_by_question ON resolutions (scene, action, args);
    CREATE TABLE results (
        id INTEGER PRIMARY KEY,
        resolution INTEGER NOT NULL REFERENCES resolutions(id),
        decision TEXT NOT NULL CHECK (decision IN ('confirm', 'override')),
        result TEXT,
        note TEXT,
        created REAL NOT NULL
    );
    CREATE INDEX results_by_resolution ON results (resolution);
    CREATE TABLE snapshots (
        id TEXT PRIMARY KEY,
        game INTEGER NOT NULL REFERENCES games(id),
        created REAL NOT NULL,
        question TEXT,
        resolution INTEGER REFERENCES resolutions(id),
        scene INTEGER REFERENCES scenes(id)
    );
    """,
    # Version 2: the game in play. Every change of state (a confirmed result, a value set by
    # hand, a change of phase, an undo) is a step of edits; a game is rebuilt by replaying its
    # steps on the game file's first state. `game_key` names the game file a game plays, so a
    # restarted server finds the last unfinished game of the same file.
    """
    ALTER TABLE games ADD COLUMN game_key TEXT;
    CREATE INDEX games_by_key ON games (game_key, ended);
    CREATE TABLE steps (
        id INTEGER PRIMARY KEY,
        game INTEGER NOT NULL REFERENCES games(id),
        created REAL NOT NULL,
        kind TEXT NOT NULL CHECK (kind IN ('set', 'outcome', 'override', 'phase', 'undo')),
        result INTEGER REFERENCES results(id),
        edits TEXT NOT NULL,
        note TEXT,
        undoes INTEGER REFERENCES steps(id)
    );
    CREATE INDEX steps_by_game ON steps (game, id);
    """,
)
"""Schema steps: `MIGRATIONS[v]` takes a file from `user_version` v to v + 1."""
SCHEMA_VERSION: Final = len(MIGRATIONS)


class LogError(UmpireError):
    """The game log cannot be used: the file is not ours, damaged, or cannot be written."""


class NotInLog(LogError):
    """An id (game, resolution) that the log does not hold."""


def _canonical(value: Any) -> str:
    """JSON text that is the same for equal documents (keys sorted, no spaces)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _busy(error: sqlite3.Error) -> bool:
    """Whether SQLite gave up waiting for another connection's lock (SQLITE_BUSY, _LOCKED and
    their extended codes): the file is fine, only in use."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is None:
        return "locked" in str(error)
    return code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def _read_only_media(path: Path) -> bool:
    """Whether `path`'s file system is mounted read-only (a CD, a write-protected card)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        return False


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _now(value: float | None) -> float:
    return time.time() if value is None else float(value)


class GameLog:
    """The game log in one SQLite file. Safe to share between threads."""

    def __init__(self, path: str | Path, *, read_only: bool = False) -> None:
        self.path = Path(path).expanduser()
        self.read_only = read_only  # a reader's (`umpire log`): never writes, refuses writes
        self.in_memory = False
        self.immutable = False
        """Opened with SQLite's `immutable=1`: the file is on read-only media."""
        self._lock = threading.RLock()
        if self.path.exists() and not self.path.is_file():
            raise LogError(f"game log {str(self.path)!r} is not a file; give a file path")
        if read_only:
            if not self.path.exists():  # a reader never creates one
                raise LogError(
                    f"no game log at {str(self.path)!r}: no game has been served with this data "
                    "folder; give the data folder of a served game with --data DIR (or set "
                    "UMPIRE_DATA)"
                )
            self._db = self._open_read_only()
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise LogError(
                f"game log {str(self.path)!r}: cannot create its folder ({error.strerror})"
            ) from None
        self._db = self._open()

    @classmethod
    def memory(cls) -> GameLog:
        """A log kept in memory only, written to no file (`umpire serve --replay`: what is
        played on a replay is forgotten when it stops)."""
        log = cls.__new__(cls)
        log.path = Path(":memory:")
        log.read_only = False
        log.in_memory = True
        log.immutable = False
        log._lock = threading.RLock()
        db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA foreign_keys=ON")
        log._migrate(db)
        log._db = db
        return log

    def _fail(self, what: str) -> LogError:
        return LogError(f"game log {str(self.path)!r}: {what}")

    def _open(self) -> sqlite3.Connection:
        try:
            db = sqlite3.connect(
                self.path, check_same_thread=False, isolation_level=None, timeout=5.0
            )
        except sqlite3.Error as error:
            raise self._fail(f"cannot be opened ({error})") from None
        try:
            self._check_ours(db)
            db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise self._fail(f"cannot use WAL mode here (the file system gave {mode!r})")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            self._migrate(db)
        except sqlite3.DatabaseError as error:
            db.close()
            raise self._unusable(error) from None
        except LogError:
            db.close()
            raise
        return db

    def _open_read_only(self) -> sqlite3.Connection:
        """The file as SQLite's `mode=ro` gives it: SQLite refuses every write itself, and no
        pragma that writes (WAL, migrations) is run. On read-only media (or a folder this
        user cannot write), where `mode=ro` cannot make the WAL's shared-memory file, with
        `immutable=1` as well: SQLite then reads the file as it stands, taking no lock."""
        if _read_only_media(self.path):
            self.immutable = True
            return self._connect_read_only("mode=ro&immutable=1")
        try:
            return self._connect_read_only("mode=ro")
        except LogError:
            if os.access(self.path.parent, os.W_OK):
                raise
        self.immutable = True
        return self._connect_read_only("mode=ro&immutable=1")

    def _connect_read_only(self, query: str) -> sqlite3.Connection:
        uri = f"{self.path.absolute().as_uri()}?{query}"  # as_uri quotes '?', '#' and '%'
        try:
            db = sqlite3.connect(
                uri,
                uri=True,
                check_same_thread=False,
                isolation_level=None,
                timeout=READ_BUSY_TIMEOUT_S,
            )
        except sqlite3.Error as error:
            raise self._unusable(error) from None
        try:
            self._check_ours(db)
        except sqlite3.DatabaseError as error:
            db.close()
            raise self._unusable(error) from None
        except LogError:
            db.close()
            raise
        return db

    def _unusable(self, error: sqlite3.Error) -> LogError:
        """What an SQLite error on opening says about the file, in words."""
        if _busy(error):
            return self._busy(error)
        if "malformed" in str(error):
            return self._fail(
                f"is damaged ({error}); it is left untouched: keep it for recovery (sqlite3 "
                "FILE .recover) and give another data folder (--data DIR or UMPIRE_DATA)"
            )
        return self._fail(
            f"is not a readable Umpire game log ({error}); move it away or give "
            "another data folder (--data DIR or UMPIRE_DATA)"
        )

    def _busy(self, error: sqlite3.Error) -> LogError:
        return self._fail(
            f"is busy: another process holds it locked ({error}); try again in a moment"
        )

    def _check_ours(self, db: sqlite3.Connection) -> None:
        """Refuse before writing a byte: another program's database, a newer log, a damaged
        one. Only reads happen here (WAL mode and the schema come after)."""
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id == 0 and version == 0 and tables == 0:
            if self.read_only:
                raise self._fail(
                    "is empty, not an Umpire game log (a reader never sets one up); give the "
                    "data folder of a served game (--data DIR or UMPIRE_DATA)"
                )
            return  # a new (or empty) file: ours to set up
        if app_id != APPLICATION_ID:
            raise self._fail(
                "is an SQLite database of another program, not an Umpire game log; it is left "
                "untouched: give another data folder (--data DIR or UMPIRE_DATA)"
            )
        if version > SCHEMA_VERSION:
            raise self._fail(
                f"was written by a newer Umpire (log version {version}, this one reads up to "
                f"{SCHEMA_VERSION}); upgrade Umpire to read it"
            )
        if self.read_only and version < SCHEMA_VERSION:
            raise self._fail(
                f"was written by an older Umpire (log version {version}, this one reads "
                f"{SCHEMA_VERSION}); a reader never brings it up to date: `umpire serve` with "
                "this data folder does"
            )
        check = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
        if check != ["ok"]:
            raise self._fail(
                f"is damaged ({'; '.join(map(str, check[:3]))}); it is left untouched: keep it "
                "for recovery (sqlite3 FILE .recover) and give another data folder"
            )

    def _migrate(self, db: sqlite3.Connection) -> None:
        version = db.execute("PRAGMA user_version").fetchone()[0]
        for step in range(version, SCHEMA_VERSION):
            # executescript commits first; the script's own BEGIN...COMMIT makes each step
            # all-or-nothing, user_version included.
            db.executescript(
                f"BEGIN; {MIGRATIONS[step]}; PRAGMA application_id={APPLICATION_ID}; "
                f"PRAGMA user_version={step + 1}; COMMIT;"
            )

    # ----------------------------------------------------------------------------- plumbing

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, committed (and fsynced) when the block ends."""
        if self.read_only:
            raise self._fail("is open read-only (to be read, as `umpire log` does): no writes")
        with self._lock:
            db = self._connection()
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    yield db
                except BaseException:
                    db.execute("ROLLBACK")
                    raise
                db.execute("COMMIT")
            except sqlite3.Error as error:
                if db.in_transaction:
                    # A full disk can refuse the rollback's own journal work: SQLite rolls
                    # the transaction back itself then, and nothing of it is on disk.
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")
                raise self._fail(f"cannot be written ({error})") from None

    @contextmanager
    def _reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            db = self._connection()
            try:
                yield db
            except sqlite3.Error as error:
                if _busy(error):
                    raise self._busy(error) from None
                raise self._fail(f"cannot be read ({error})") from None

    def _connection(self) -> sqlite3.Connection:
        if self._db is None:
            raise self._fail("is closed")
        return self._db

    def close(self) -> None:
        """Let go of the file (the WAL is checkpointed into it). Safe to call twice."""
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None  # type: ignore[assignment]

    def __enter__(self) -> GameLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ----------------------------------------------------------------------------- writing

    def start_game(
        self,
        ruleset: str,
        source: str,
        game_toml: str | None = None,
        *,
        key: str | None = None,
        started: float | None = None,
    ) -> int:
        """A new game row; its id. `key` names the game file it plays (for resuming)."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO games (started, ruleset, source, game_toml, game_key)"
                " VALUES (?, ?, ?, ?, ?)",
                (_now(started), ruleset, source, game_toml, key),
            )
        return int(cursor.lastrowid or 0)

    def end_game(self, game: int, *, ended: float | None = None) -> None:
        """Mark a game ended: it is over and a restart will not resume it."""
        with self._transaction() as db:
            self._need_game(db, game)
            db.execute(
                "UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL", (_now(ended), game)
            )

    def unfinished_game(self, key: str) -> int | None:
        """The last game of the game file `key` that was not ended, if any."""
        with self._reading() as db:
            row = db.execute(
                "SELECT max(id) FROM games WHERE game_key = ? AND ended IS NULL", (key,)
            ).fetchone()
        return None if row[0] is None else int(row[0])

    def record_step(
        self,
        game: int,
        kind: str,
        edits: Sequence[Mapping[str, Any]],
        *,
        note: str | None = None,
        undoes: int | None = None,
        created: float | None = None,
    ) -> int:
        """One change of state of a game; returns once it is on disk."""
        if kind not in STEP_KINDS:
            raise LogError(f"step kind {kind!r} is not one of {', '.join(STEP_KINDS)}")
        with self._transaction() as db:
            self._need_game(db, game)
            return self._insert_step(db, game, kind, edits, note, undoes, None, created)

    def record_result_and_step(
        self,
        resolution: int,
        decision: str,
        result: Mapping[str, Any] | None,
        note: str | None,
        edits: Sequence[Mapping[str, Any]],
        *,
        created: float | None = None,
    ) -> tuple[int, int | None]:
        """What the table did with a resolution and the change of state it leads to, in one
        transaction (both or neither are on disk when this returns): the result's id and the
        step's (None when nothing changed)."""
        if decision not in DECISIONS:
            raise LogError(f"decision {decision!r} is not one of {', '.join(DECISIONS)}")
        with self._transaction() as db:
            if not self._has_resolution(db, resolution):
                raise NotInLog(f"no resolution {resolution} in the game log")
            game = int(
                db.execute("SELECT game FROM resolutions WHERE id = ?", (resolution,)).fetchone()[0]
            )
            cursor = db.execute(
                "INSERT INTO results (resolution, decision, result, note, created)"
                " VALUES (?, ?, ?, ?, ?)",
                (
                    resolution,
                    decision,
                    None if result is None else _canonical(result),
                    note,
                    _now(created),
                ),
            )
            result_id = int(cursor.lastrowid or 0)
            step = None
            if edits:
                kind = "outcome" if decision == "confirm" else "override"
                step = self._insert_step(db, game, kind, edits, note, None, result_id, created)
        return result_id, step

    def _insert_step(
        self,
        db: sqlite3.Connection,
        game: int,
        kind: str,
        edits: Sequence[Mapping[str, Any]],
        note: str | None,
        undoes: int | None,
        result: int | None,
        created: float | None,
    ) -> int:
        cursor = db.execute(
            "INSERT INTO steps (game, created, kind, result, edits, note, undoes)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game, _now(created), kind, result, _canonical(list(edits)), note, undoes),
        )
        return int(cursor.lastrowid or 0)

    def steps(self, game: int) -> list[dict[str, Any]]:
        """Every step of a game in the order taken, edits parsed."""
        with self._reading() as db:
            rows = db.execute(
                "SELECT id, created, kind, result, edits, note, undoes FROM steps"
                " WHERE game = ? ORDER BY id",
                (game,),
            ).fetchall()
        keys = ("id", "created", "kind", "result", "edits", "note", "undoes")
        out = [dict(zip(keys, row, strict=True)) for row in rows]
        for step in out:
            step["edits"] = _loads(step["edits"])
        return out

    def record_scene(
        self,
        game: int,
        turn: int,
        phase: str | None,
        frame: int | None,
        doc: Mapping[str, Any],
        *,
        created: float | None = None,
    ) -> int:
        """The scene `doc` seen in `turn`; the row of an identical scene of the same turn is
        reused (a still table asked about ten times is stored once)."""
        text = _canonical(doc)
        digest = hashlib.sha256(text.encode()).hexdigest()
        with self._transaction() as db:
            self._need_game(db, game)
            row = db.execute(
                "SELECT id FROM scenes WHERE game = ? AND turn = ? AND sha256 = ?",
                (game, turn, digest),
            ).fetchone()
            if row is not None:
                return int(row[0])
            cursor = db.execute(
                "INSERT INTO scenes (game, turn, phase, frame, created, doc, sha256)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game, turn, phase, frame, _now(created), text, digest),
            )
        return int(cursor.lastrowid or 0)

    def record_resolution(
        self,
        game: int,
        scene: int,
        action: str,
        args: Sequence[str],
        answer: Mapping[str, Any],
        *,
        created: float | None = None,
    ) -> int:
        """An answer shown for `action args` on a logged scene; an identical answer to the same
        question on the same scene shares the earlier row."""
        args_text, answer_text = _canonical(list(args)), _canonical(answer)
        with self._transaction() as db:
            self._need_game(db, game)
            owner = db.execute("SELECT game FROM scenes WHERE id = ?", (scene,)).fetchone()
            if owner is None or owner[0] != game:
                raise NotInLog(f"game log: no scene {scene} in game {game}")
            row = db.execute(
                "SELECT id FROM resolutions WHERE scene = ? AND action = ? AND args = ?"
                " AND answer = ?",
                (scene, action, args_text, answer_text),
            ).fetchone()
            if row is not None:
                return int(row[0])
            cursor = db.execute(
                "INSERT INTO resolutions (game, scene, action, args, answer, created)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (game, scene, action, args_text, answer_text, _now(created)),
            )
        return int(cursor.lastrowid or 0)

    def record_result(
        self,
        resolution: int,
        decision: str,
        result: Mapping[str, Any] | None = None,
        note: str | None = None,
        *,
        created: float | None = None,
    ) -> int:
        """What the table did with a resolution. Returns once the row is on disk."""
        if decision not in DECISIONS:
            raise LogError(f"decision {decision!r} is not one of {', '.join(DECISIONS)}")
        result_text = None if result is None else _canonical(result)
        with self._transaction() as db:
            if not self._has_resolution(db, resolution):
                raise NotInLog(f"no resolution {resolution} in the game log")
            cursor = db.execute(
                "INSERT INTO results (resolution, decision, result, note, created)"
                " VALUES (?, ?, ?, ?, ?)",
                (resolution, decision, result_text, note, _now(created)),
            )
        return int(cursor.lastrowid or 0)

    def record_snapshot(
        self,
        ident: str,
        game: int,
        *,
        question: Mapping[str, Any] | None,
        resolution: int | None,
        scene: int | None,
        created: float | None = None,
    ) -> None:
        """A dispute snapshot (its PNG and JSON live in the snapshots folder under `ident`)."""
        with self._transaction() as db:
            self._need_game(db, game)
            db.execute(
                "INSERT INTO snapshots (id, game, created, question, resolution, scene)"
                " VALUES (?, ?, ?, ?, ?, ?)",
                (
                    ident,
                    game,
                    _now(created),
                    None if question is None else _canonical(question),
                    resolution,
                    scene,
                ),
            )

    def _need_game(self, db: sqlite3.Connection, game: int) -> None:
        if db.execute("SELECT 1 FROM games WHERE id = ?", (game,)).fetchone() is None:
            raise self._unknown_game(db, game)

    @staticmethod
    def _has_resolution(db: sqlite3.Connection, resolution: int) -> bool:
        if isinstance(resolution, bool) or not isinstance(resolution, int):
            return False
        if not 0 < resolution < 2**63:
            return False  # beyond SQLite's integers: no such row
        found = db.execute("SELECT 1 FROM resolutions WHERE id = ?", (resolution,)).fetchone()
        return found is not None

    def _unknown_game(self, db: sqlite3.Connection, game: object) -> NotInLog:
        known = [str(row[0]) for row in db.execute("SELECT id FROM games ORDER BY id")]
        listed = ", ".join(known[-20:]) if known else "none yet"
        return NotInLog(f"game log {str(self.path)!r}: no game {game!r}; its games are {listed}")

    # ----------------------------------------------------------------------------- reading

    def question(self, resolution: int) -> dict[str, Any]:
        """The question a logged resolution answered: its game, action and args."""
        with self._reading() as db:
            row = (
                db.execute(
                    "SELECT game, action, args FROM resolutions WHERE id = ?", (resolution,)
                ).fetchone()
                if self._has_resolution(db, resolution)
                else None
            )
        if row is None:
            raise NotInLog(f"no resolution {resolution} in the game log")
        return {"game": int(row[0]), "action": str(row[1]), "args": _loads(row[2])}

    def has_resolution(self, resolution: int) -> bool:
        with self._reading() as db:
            return self._has_resolution(db, resolution)

    def game_key(self, game: int) -> str | None:
        with self._reading() as db:
            row = db.execute("SELECT game_key FROM games WHERE id = ?", (game,)).fetchone()
        return None if row is None else row[0]

    def games(self) -> list[dict[str, Any]]:
        """Every game, oldest first, with how much of it was logged."""
        with self._reading() as db:
            rows = db.execute(
                """
                SELECT g.id, g.started, g.ended, g.ruleset, g.source,
                  (SELECT max(turn) FROM scenes WHERE game = g.id),
                  (SELECT count(*) FROM scenes WHERE game = g.id),
                  (SELECT count(*) FROM resolutions WHERE game = g.id),
                  (SELECT count(*) FROM results r JOIN resolutions s ON r.resolution = s.id
                     WHERE s.game = g.id),
                  (SELECT count(*) FROM snapshots WHERE game = g.id),
                  (SELECT count(*) FROM steps WHERE game = g.id)
                FROM games g ORDER BY g.id
                """
            ).fetchall()
        keys = (
            "id",
            "started",
            "ended",
            "ruleset",
            "source",
            "turns",
            "scenes",
            "resolutions",
            "results",
            "snapshots",
            "steps",
        )
        listed = [dict(zip(keys, row, strict=True)) for row in rows]
        for game in listed:
            game["turns"] = game["turns"] or 0
        return listed

    def latest_game(self) -> int | None:
        """The id of the game started last, None when the log holds none."""
        with self._reading() as db:
            row = db.execute("SELECT max(id) FROM games").fetchone()
        return None if row[0] is None else int(row[0])

    def game(self, game: int) -> dict[str, Any]:
        """One game's row (its game file text under `game_toml`)."""
        with self._reading() as db:
            if not _sqlite_id(game):
                raise self._unknown_game(db, game)
            row = db.execute(
                "SELECT id, started, ended, ruleset, source, game_toml FROM games WHERE id = ?",
                (game,),
            ).fetchone()
            if row is None:
                raise self._unknown_game(db, game)
        keys = ("id", "started", "ended", "ruleset", "source", "game_toml")
        return dict(zip(keys, row, strict=True))

    def scenes(self, game: int) -> list[dict[str, Any]]:
        """Every scene of a game in the order recorded, documents parsed."""
        with self._reading() as db:
            if not _sqlite_id(game) or (
                db.execute("SELECT 1 FROM games WHERE id = ?", (game,)).fetchone() is None
            ):
                raise self._unknown_game(db, game)
            rows = db.execute(
                "SELECT id, turn, phase, frame, created, sha256, doc FROM scenes"
                " WHERE game = ? ORDER BY id",
                (game,),
            ).fetchall()
        keys = ("id", "turn", "phase", "frame", "created", "sha256")
        return [{**dict(zip(keys, row[:6], strict=True)), "doc": _loads(row[6])} for row in rows]

    def summary(self, game: int, *, last: int = 50) -> dict[str, Any]:
        """What `/api/log` shows: the game, its turn, counts and the last results."""
        with self._reading() as db:
            row = db.execute(
                "SELECT id, started, ruleset, source FROM games WHERE id = ?", (game,)
            ).fetchone()
            if row is None:
                raise self._unknown_game(db, game)
            turn, scenes = db.execute(
                "SELECT max(turn), count(*) FROM scenes WHERE game = ?", (game,)
            ).fetchone()
            resolutions = db.execute(
                "SELECT count(*) FROM resolutions WHERE game = ?", (game,)
            ).fetchone()[0]
            results = db.execute(
                "SELECT r.id, r.resolution, r.decision, r.result, r.note, r.created, s.action,"
                " s.args FROM results r JOIN resolutions s ON r.resolution = s.id"
                " WHERE s.game = ? ORDER BY r.id DESC LIMIT ?",
                (game, last),
            ).fetchall()
        return {
            "game": dict(zip(("id", "started", "ruleset", "source"), row, strict=True)),
            "turn": turn or 1,
            "scenes": scenes,
            "resolutions": resolutions,
            "results": [_result_json(r) for r in results],
        }

    def export(self, game: int) -> dict[str, Any]:
        """Everything logged of one game, ready for `json.dumps`: one consistent picture. The
        lock keeps this process's writes out, and one read transaction keeps another
        process's out too (`umpire log` reading while `umpire serve` writes): every query
        reads the same snapshot of the WAL."""
        with self._reading() as db:
            db.execute("BEGIN")
            try:
                return self._export(game)
            finally:
                # Only a read ends here: if SQLite already rolled it back (an I/O error, a
                # busy file), there is nothing to end, and the error on its way out stands.
                if db.in_transaction:
                    with suppress(sqlite3.Error):
                        db.execute("ROLLBACK")

    def _export(self, game: int) -> dict[str, Any]:
        header = self.game(game)
        with self._reading() as db:
            resolutions = db.execute(
                "SELECT id, scene, action, args, answer, created FROM resolutions"
                " WHERE game = ? ORDER BY id",
                (game,),
            ).fetchall()
            results = db.execute(
                "SELECT r.id, r.resolution, r.decision, r.result, r.note, r.created, s.action,"
                " s.args FROM results r JOIN resolutions s ON r.resolution = s.id"
                " WHERE s.game = ? ORDER BY r.id",
                (game,),
            ).fetchall()
            snapshots = db.execute(
                "SELECT id, created, question, resolution, scene FROM snapshots"
                " WHERE game = ? ORDER BY created, id",
                (game,),
            ).fetchall()
        return {
            "format": EXPORT_FORMAT,
            "game": header,
            "scenes": self.scenes(game),
            "resolutions": [
                {
                    "id": r[0],
                    "scene": r[1],
                    "action": r[2],
                    "args": _loads(r[3]),
                    "answer": _loads(r[4]),
                    "created": r[5],
                }
                for r in resolutions
            ],
            "results": [_result_json(r) for r in results],
            "steps": self.steps(game),
            "snapshots": [
                {
                    "id": s[0],
                    "created": s[1],
                    "question": _loads(s[2]),
                    "resolution": s[3],
                    "scene": s[4],
                }
                for s in snapshots
            ],
        }


def _result_json(row: Sequence[Any]) -> dict[str, Any]:
    ident, resolution, decision, result, note, created, action, args = row
    return {
        "id": ident,
        "resolution": resolution,
        "decision": decision,
        "result": _loads(result),
        "note": note,
        "created": created,
        "question": {"action": action, "args": _loads(args)},
    }


def json_depth(value: Any, limit: int) -> bool:
    """True when `value` nests no deeper than `limit` lists and objects (and holds no
    non-finite number): what the log accepts as a table's result."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict | list):
            if depth >= limit:
                return False
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return True


# --------------------------------------------------------------------------------- the web app


_open_lock = threading.Lock()


def _sqlite_id(value: object) -> bool:
    """Whether a row id could be in SQLite at all (a whole number from 1 to 2**63 - 1)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**63


def install_log(app: Flask, log: GameLog) -> None:
    """Give `app` the log it records into (the CLI opens it at start-up, so a bad file is
    reported before the server starts)."""
    app.extensions["umpire_log"] = log


def current_log() -> GameLog:
    """The log of the app serving this request: the installed one, or
    `DATA_DIR/umpire.sqlite` opened on first use."""
    app = current_app
    log = app.extensions.get("umpire_log")
    if isinstance(log, GameLog):
        return log
    with _open_lock:
        log = app.extensions.get("umpire_log")
        if not isinstance(log, GameLog):
            log = GameLog(Path(app.config["DATA_DIR"]).expanduser() / LOG_FILE)
            app.extensions["umpire_log"] = log
    return log
