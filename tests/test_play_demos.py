"""Three turns of colonial-adventure, age-of-napoleon and europe-19c played through the JSON API
of the real server: Flask's test client over a real tracker (`webui.live.Live`) scanning the
frames of each sheet's built-in demo camera (`vision/demo.py`, `vision/demo_game/RULESET.toml`).

For each sheet the game goes through three whole turns of its sequence of play (`POST
/api/phase`, the turn reaching 4 back at the first phase, per-turn state reset), and in the right
phases an outcome of every kind the sheet has is asked (`POST /api/resolve`: its `log_id` and
`report_form`), previewed (`POST /api/outcome`, which changes nothing) and confirmed (`POST
/api/results`); the change is checked in `/api/state`, in `/api/scene` for a base taken off, and
in the next resolution. A confirmed outcome is one Undo step; a restart (a new tracker and a new
app on the same data folder) resumes the same turn, phase and state; End game refuses every
change (409) and New game starts again from the game file.

Every expected value is worked out by hand from the sheet (the line is in the comment), from the
demo's game file (`vision/demo_game/*.toml`: the troops and their start-of-game state) and from
where the demo lays its units out (`vision/demo_game/*.json`: who is in range of whom); none is
copied from the code's output. An edit is written (target, field, before, after).
"""

from __future__ import annotations

import threading
import time
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from vision.demo import DEMO_DIR, open_demo_game
from webui.api import install_playing, open_playing
from webui.app import create_app
from webui.gamelog import LOG_FILE, GameLog, install_log
from webui.live import Live

TOKEN = "test-csrf-token"
CSRF = {"X-CSRF-Token": TOKEN}
"""Every POST carries the page's CSRF token (tests/test_security.py checks one without it)."""
FIRST_SCENE_S = 90.0
"""The longest a busy machine may take to scan the demo's first frame (it takes about 1 s)."""

Edit = tuple[str, str, Any, Any]
"""(target: a unit, a base or `game`; field; value before; value after)."""


class Table:
    """One server: the tracker over a demo camera, the app, its test client."""

    def __init__(self, ruleset: str, data: Path) -> None:
        demo = open_demo_game(ruleset, realtime=False, move_every=0, hand_every=0)
        self.live = Live(demo, demo.game).start()
        deadline = time.monotonic() + FIRST_SCENE_S
        state = self.live.state
        while state.scene is None and time.monotonic() < deadline:
            state = self.live.wait_for_version(state.version, 1.0)
        assert state.scene is not None, state.status
        config = {"TESTING": True, "DATA_DIR": str(data), "CSRF_TOKEN": TOKEN}
        app = create_app(config, live=self.live)
        # As `umpire serve` starts: the log and the game (resumed, applied to the tracker's
        # scenes) opened before the first request; a read route never opens or starts one.
        log = GameLog(data / LOG_FILE)
        install_log(app, log)
        install_playing(app, open_playing(log, self.live))
        self.client: FlaskClient = app.test_client()

    # ----------------------------------------------------------------------------- requests

    def get(self, path: str) -> Any:
        response = self.client.get(path)
        assert response.status_code == 200, (path, response.data[:500])
        return response.get_json()

    def post(self, path: str, body: dict[str, Any], status: int = 200) -> Any:
        response = self.client.post(path, json=body, headers=CSRF)
        assert response.status_code == status, (path, body, response.data[:500])
        return response.get_json()

    def state(self) -> dict[str, Any]:
        state: dict[str, Any] = self.get("/api/state")
        return state

    def bases(self) -> set[str]:
        """The bases in the current scene (those taken off are left out)."""
        scene = self.get("/api/scene")
        return {b["id"] for u in scene["units"] for b in u["bases"]}

    def look(self, action: str, *args: str) -> dict[str, Any]:
        """Anybody's question (a GET: answered, never logged): the next resolution."""
        answer: dict[str, Any] = self.get(f"/api/resolve?action={action}&args={','.join(args)}")
        return answer

    def refusal(self, action: str, *args: str) -> str:
        """Why the rules refuse a question now (a shot not allowed): the reasons of an answer
        `allowed: false`. `/api/resolve` answers such a shot of colonial-adventure or
        age-of-napoleon 400, its error naming the same reasons, where `umpire resolve --json`
        prints the resolution with `allowed: false` (building its report form raises): both are
        taken here, so the play goes on either way."""
        response = self.client.get(f"/api/resolve?action={action}&args={','.join(args)}")
        if response.status_code == 200:
            answer = response.get_json()
            assert answer["allowed"] is False, answer
            if "reasons" not in answer:
                # An answer that gives no reasons (a move the actions left this turn cannot
                # pay for) has an empty report form; settling it says why (400).
                assert answer["report_form"] == [], answer
                body = {"action": action, "args": list(args), "result": {}}
                return str(self.post("/api/outcome", body, 400)["error"])
            return "; ".join(
                r if isinstance(r, str) else f"{r['reason']} ({r['source']})"
                for r in answer["reasons"]
            )
        assert response.status_code == 400, response.data[:500]
        return str(response.get_json()["error"])

    def suggested(self, phase: str) -> set[tuple[str, ...]]:
        """The suggestions of a phase, as (kind, *args)."""
        items = self.get(f"/api/suggest?phase={phase}")["items"]
        return {(i["kind"], *i["args"]) for i in items}

    def phase(self, name: str) -> dict[str, Any]:
        moved: dict[str, Any] = self.post("/api/phase", {"phase": name})
        assert moved["phase"] == name
        return moved

    # ----------------------------------------------------------------------------- outcomes

    def ask(self, action: str, *args: str) -> dict[str, Any]:
        """A player's question (logged: it has the `log_id` a result needs)."""
        answer: dict[str, Any] = self.post("/api/resolve", {"action": action, "args": list(args)})
        assert isinstance(answer["log_id"], int)
        return answer

    def outcome(
        self, action: str, args: tuple[str, ...], result: dict[str, Any], edits: set[Edit]
    ) -> dict[str, Any] | None:
        """Ask, preview and confirm one outcome: the form asks for what `result` reports, the
        preview and the confirmed step both make exactly `edits` (the preview changing nothing),
        and `/api/state` shows every value after; the step (None when nothing changed)."""
        asked = self.ask(action, *args)
        assert {r["name"] for r in asked["report_form"]} == set(result), asked["report_form"]
        before = self.state()
        preview = self.post(
            "/api/outcome", {"action": action, "args": list(args), "result": result}
        )
        assert _edits(preview["edits"]) == edits, preview
        assert self.state() == before  # a preview changes nothing
        saved = self.post(
            "/api/results",
            {"resolution": asked["log_id"], "decision": "confirm", "result": result},
            201,
        )
        step: dict[str, Any] | None = saved["step"]
        state = self.state()
        if not edits:
            assert step is None and state == before, saved
            return None
        assert step is not None and step["kind"] == "outcome", saved
        assert _edits(step["edits"]) == edits
        assert state["undo"]["id"] == step["id"]  # one step: the next Undo takes it all back
        for target, field, _, after in edits:
            assert value_of(state, target, field) == after, (target, field)
        return step

    def undo(self, step: dict[str, Any]) -> None:
        """One Undo takes back every change of `step`."""
        undone = self.post("/api/state/undo", {})
        assert undone["undone"] == step["id"] and undone["step"]["kind"] == "undo"
        state = self.state()
        for target, field, before, _ in _edits(step["edits"]):
            assert value_of(state, target, field) == before, (target, field)


Serve = Callable[[str, Path], Table]
"""The `serve` fixture: a server on a ruleset's demo and a data folder."""


def _edits(edits: list[dict[str, Any]]) -> set[Edit]:
    return {(e["target"], e["field"], e["before"], e["after"]) for e in edits}


def value_of(state: dict[str, Any], target: str, field: str) -> Any:
    """A field's value in `/api/state`: a unit's, a base's (`removed`, `held`) or the game's."""
    if target == "game":
        return state[field]
    if field in ("removed", "held"):
        return target in state[field]
    return state["units"][target][field]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start servers (each a tracker over a fresh demo camera); every one stops at the end."""
    started: list[Table] = []

    def start(ruleset: str, data: Path) -> Table:
        table = Table(ruleset, data)
        started.append(table)
        return table

    yield start
    for table in started:
        table.live.stop()
    assert not [t for t in threading.enumerate() if t.name.startswith("umpire-")]


def game_file(ruleset: str) -> dict[str, Any]:
    """The demo's game file as written."""
    with (DEMO_DIR / f"{ruleset}.toml").open("rb") as file:
        return tomllib.load(file)


def restart_end_and_new(
    serve: Serve,
    table: Table,
    data: Path,
    ruleset: str,
    first: dict[str, Any],
) -> None:
    """Shared by every sheet, once three turns are played: a new tracker and a new app on the
    same data folder resume the same game, turn, phase and state (bases taken off stay off the
    table); End game refuses every change with 409; New game is turn 1, the first phase and the
    game file's state. `first` is `/api/state` before anything was played."""
    played = table.state()
    assert played["turn"] == 4 and played["phase"] == first["phase"]
    table.live.stop()
    again = serve(ruleset, data)
    resumed = again.state()
    assert resumed["resumed"] is True
    same = ("game", "turn", "phase", "initiative", "units", "removed", "held", "undo")
    assert {k: resumed[k] for k in same} == {k: played[k] for k in same}
    assert played["removed"] and not set(played["removed"]) & again.bases()
    # The new tracker's scenes (what every resolution reads) carry the resumed state.
    for unit in again.get("/api/scene")["units"]:
        kept = resumed["units"][unit["id"]]
        assert {k: unit[k] for k in kept} == kept, unit["id"]

    # End game: nothing changes any more (409, "start a new game") ...
    assert again.post("/api/game/end", {}) == {"game": played["game"], "ended": True}
    asked = again.ask("suggest")
    for path, body in (
        ("/api/phase", {"phase": first["phases"][1]["name"]}),
        ("/api/state", {"base": played["removed"][0], "set": {"removed": False}}),
        ("/api/state", {"game": True, "set": {"turn": 1}}),
        ("/api/state/undo", {}),
        (
            "/api/results",
            {
                "resolution": asked["log_id"],
                "decision": "override",
                "changes": [{"base": played["removed"][0], "field": "removed", "value": False}],
            },
        ),
    ):
        refused = again.post(path, body, 409)
        assert "start a new game" in refused["error"] and refused["needs"] == "new-game"
    ended = again.state()
    assert ended["ended"] is True
    assert {k: ended[k] for k in same} == {k: played[k] for k in same}

    # ... until a new game: turn 1, the first phase, the game file's state.
    made = again.post("/api/game/new", {}, 201)
    assert made == {"game": played["game"] + 1, "turn": 1, "phase": first["phase"]}
    fresh = again.state()
    assert (fresh["game"], fresh["turn"], fresh["phase"], fresh["ended"]) == (
        played["game"] + 1,
        1,
        first["phase"],
        False,
    )
    assert fresh["initiative"] is None and fresh["undo"] is None
    assert fresh["removed"] == [] and fresh["held"] == []
    assert fresh["units"] == first["units"]
    # The game file's state, as written in it (what a field is not given starts at the default).
    for written in game_file(ruleset)["units"]:
        kept = fresh["units"][written["id"]]
        assert {k: kept[k] for k in kept if k in written} == {
            k: written[k] for k in kept if k in written
        }
    # Every base is back on the table, and in the scene once the camera sees it again.
    every = {b["id"] for u in game_file(ruleset)["units"] for b in u["bases"]}
    deadline = time.monotonic() + FIRST_SCENE_S
    while again.bases() != every and time.monotonic() < deadline:
        again.live.wait_for_version(again.live.state.version, 1.0)
    assert again.bases() == every
    # ... and open to changes again.
    assert again.phase(first["phases"][1]["name"])["turn"] == 1


# --------------------------------------------------------------------------------------------
# colonial-adventure (rules/sheets/002_9c2296e6290248df.txt), in inches. The demo: British
# (rifles with Major Ross, a Gatling, a nine-pounder, lancers, mounted carbineers, the native
# contingent `nnc` shaken at 7 shock) against Zulus (two impis of fighters, riflemen in the
# kraal); the nnc and the Ingobamakhosi in base contact.

CA = "colonial-adventure"
CA_PHASES = ["artillery", "initiative", "action-1", "action-2", "close-combat", "morale"]  # 7-12


def test_colonial_adventure_three_turns(serve: Serve, tmp_path: Path) -> None:
    table = serve(CA, tmp_path)
    first = table.state()
    assert [p["name"] for p in first["phases"]] == CA_PHASES
    assert (first["turn"], first["phase"], first["initiative"]) == (1, "artillery", None)

    # ---------------------------------------------------------------- turn 1, artillery (line 7)
    assert ("shoot", "gatling", "umcijo") in table.suggested("artillery")
    shot = table.look("shoot", "gatling", "umcijo")
    # 14W6 Repeating Gun (line 68); 13.7" away, 9-18" (line 93): 5-6 (line 96).
    assert (shot["band"], shot["dice"], shot["need"]) == ("9-18", 14, 5)
    # 3 hits: 1 kill (5-6, line 106) taking off umcijo-1, 1 shock point (3-4, line 105); more
    # 1s than 6s: jammed (line 98). Fired, the gun is unloaded (line 30: reload 1 action); guns
    # fire in the Artillery Phase (line 7) without spending an action.
    gatling_volley = {"hits": 3, "kills": 1, "shock": 1, "removed": ["umcijo-1"], "jammed": True}
    gatling_edits = {
        ("umcijo", "shock", 0, 1),
        ("umcijo-1", "removed", False, True),
        ("gatling", "loaded", True, False),
        ("gatling", "jammed", False, True),
    }
    step = table.outcome("shoot", ("gatling", "umcijo"), gatling_volley, gatling_edits)
    assert step is not None
    assert "umcijo-1" not in table.bases()
    refused = table.refusal("shoot", "gatling", "umcijo")
    assert "gatling is not loaded" in refused  # line 30
    assert "gatling is jammed" in refused  # line 31: fix it first
    assert not {s for s in table.suggested("artillery") if s[1] == "gatling"}
    # One Undo takes the whole volley back: the base is on the table, the gun loaded again.
    table.undo(step)
    assert "umcijo-1" in table.bases()
    assert table.look("shoot", "gatling", "umcijo")["allowed"] is True
    table.outcome("shoot", ("gatling", "umcijo"), gatling_volley, gatling_edits)

    # ---------------------------------------------------------------- initiative (line 8)
    table.phase("initiative")
    assert table.state()["sides"]["initiative-order"] == ["british", "zulu"]  # table order
    # 1d6 each, +1 to the side with more leaders: the British have 3 (rifles' commander and
    # leader, the lancers' leader), the Zulus 2: british 2+1 = 3 against zulu 4: zulu.
    table.outcome(
        "initiative",
        (),
        {"roll_british": 2, "roll_zulu": 4},
        {("game", "initiative", None, "zulu")},
    )

    # ---------------------------------------------------------------- 1. Action Phase (line 9)
    table.phase("action-1")
    state = table.state()
    assert state["acting"] == "initiative-order"
    assert state["acting_sides"] == ["zulu", "british"]  # the winner acts first
    # The carbineers (4 figures, class C: no adjustment, lines 65, 74) fire carbines at the
    # Ingobamakhosi 8.6" away: 0-9", 5-6 (line 88), unformed: no +1 (line 84).
    volley = table.look("shoot", "carbineers", "ingobamakhosi")
    assert (volley["band"], volley["dice"], volley["need"]) == ("0-9", 4, 5)
    # Before: the Ingobamakhosi throw 1 die a figure (7, line 65), +1 for the leader (line 79).
    assert table.look("shoot", "ingobamakhosi", "carbineers")["dice"] == 8
    # Close combat (lines 124-130): 7 men, +1 leader, +2 for class C a status above the nnc's D.
    assert _melee_dice(table.look("melee", "nnc", "ingobamakhosi")) == (2, 10)
    # 2 hits, both 3-4: 2 shock points (line 105). Fire costs 1 action (line 26); a carbine has
    # no reload on the sheet, so it stays ready.
    table.outcome(
        "shoot",
        ("carbineers", "ingobamakhosi"),
        {"hits": 2, "kills": 0, "shock": 2, "removed": []},
        {("ingobamakhosi", "shock", 0, 2), ("carbineers", "actions_spent", 0, 1)},
    )
    # Each two shock points on the firer: -1 firing die (line 81); -1D6 in close combat per two
    # shock points (line 131): 10 - 1 = 9.
    assert table.look("shoot", "ingobamakhosi", "carbineers")["dice"] == 7
    assert _melee_dice(table.look("melee", "nnc", "ingobamakhosi")) == (2, 9)

    # The rifles: 8 figures firing (the commander and the leader fire too, line 65), +1 die per
    # five men for class B (line 73), +1 leader (line 79), +3 commander (line 80) = 13 dice;
    # rifle at 9-18" 5-6 (line 87), in line: +1 on the roll (line 84): 4+.
    volley = table.look("shoot", "rifles", "umcijo")
    assert (volley["band"], volley["dice"], volley["need"]) == ("9-18", 13, 4)
    # 4 hits: 2 kills (umcijo-2 and -3 off), 1 shock point, 1 no effect (lines 104-106).
    table.outcome(
        "shoot",
        ("rifles", "umcijo"),
        {"hits": 4, "kills": 2, "shock": 1, "removed": ["umcijo-2", "umcijo-3"]},
        {
            ("umcijo", "shock", 1, 2),
            ("umcijo-2", "removed", False, True),
            ("umcijo-3", "removed", False, True),
            ("rifles", "loaded", True, False),  # line 27: reload rifle 1
            ("rifles", "actions_spent", 0, 1),  # line 26: fire 1
        },
    )
    assert not {"umcijo-1", "umcijo-2", "umcijo-3"} & table.bases()
    assert "rifles is not loaded" in table.refusal("shoot", "rifles", "umcijo")  # line 27
    assert "reload rifle" in table.look("actions", "rifles")["open_now"]

    # ---------------------------------------------------------------- 2. Action Phase (line 10)
    table.phase("action-2")
    # The actions row "Reload rifle 1" (line 27): loaded, the second of two actions (line 16).
    table.outcome(
        "actions",
        ("rifles",),
        {"action": "reload rifle"},
        {("rifles", "loaded", False, True), ("rifles", "actions_spent", 1, 2)},
    )
    refused = table.refusal("shoot", "rifles", "umcijo")
    # Loaded, but both actions spent (lines 16, 26).
    assert "not loaded" not in refused and "rifles has spent its 2 actions" in refused
    # Major Ross's own actions (line 16): "Attack order (Com.) 1" (line 33), +1D6 in this
    # turn's close combat (line 128).
    table.outcome(
        "actions",
        ("rifles",),
        {"action": "attack order (commander)"},
        {("rifles", "commander_actions", 0, 1), ("rifles", "attack_actions", 0, 1)},
    )
    assert table.look("actions", "rifles")["commander_actions_left"] == 1
    # "Fix jammed Machine Gun 2" (line 31): both the Gatling's actions.
    table.outcome(
        "actions",
        ("gatling",),
        {"action": "fix jammed machine gun"},
        {("gatling", "jammed", True, False), ("gatling", "actions_spent", 0, 2)},
    )
    refused = table.refusal("shoot", "gatling", "umcijo")
    assert "gatling is not loaded" in refused and "jammed" not in refused
    # "Dismounting / Mounting 1" (line 24): the carbineers dismount (they move as infantry
    # from now on, see turn 2), their second action (line 16): no move is left this turn.
    assert _allowance(table.look("move", "carbineers")) == ("mounted-infantry", 8.0)  # line 40
    table.outcome(
        "actions",
        ("carbineers",),
        {"action": "dismount / mount"},
        {("carbineers", "mounted", True, False), ("carbineers", "actions_spent", 1, 2)},
    )
    assert "carbineers cannot make this move this turn" in table.refusal("move", "carbineers")
    # A move: "Move 1" (line 20), cavalry 12" (line 41); nothing to report.
    assert _allowance(table.look("move", "lancers")) == ("cavalry", 12.0)
    table.outcome("move", ("lancers",), {}, {("lancers", "actions_spent", 0, 1)})
    assert table.look("actions", "lancers")["actions_left"] == 1

    # ---------------------------------------------------------------- Close Combat (line 11)
    table.phase("close-combat")
    assert table.suggested("close-combat") == {("melee", "nnc", "ingobamakhosi")}
    # The nnc: 5 men - 3 dice for 7 shock points = 2 (lines 124, 131); the Ingobamakhosi 9.
    # The nnc roll a 5 and a 5: 2 shock points (line 138); the Ingobamakhosi (fighters: 5-6
    # kill, 4 a shock point, line 136) kill 2 (nnc-1 and -2 off) and shock 1. The nnc lost 2
    # dead to none: "Defeated by 2: ... + 2 Shock points" (line 148): 7 + 1 + 2 = 10.
    table.outcome(
        "melee",
        ("nnc", "ingobamakhosi"),
        {
            "attacker_kills": 0,
            "attacker_shock": 2,
            "defender_kills": 2,
            "defender_shock": 1,
            "attacker_removed": ["nnc-1", "nnc-2"],
            "defender_removed": [],
        },
        {
            ("nnc", "shock", 7, 10),
            ("ingobamakhosi", "shock", 2, 4),
            ("nnc-1", "removed", False, True),
            ("nnc-2", "removed", False, True),
        },
    )
    assert table.look("shoot", "ingobamakhosi", "carbineers")["dice"] == 6  # 8 - 4 // 2
    # 3 men left with 10 shock points: at least twice as many, broken (line 161).
    morale = table.look("morale", "nnc")
    assert (morale["men"], morale["shock"], morale["status"]) == (3, 10, "broken")

    # ---------------------------------------------------------------- Moral Phase (line 12)
    table.phase("morale")
    assert table.suggested("morale") == {("morale", "nnc")}
    # "they are broken (remove from table)" (line 161): no dice, the last three bases go.
    table.outcome(
        "morale",
        ("nnc",),
        {},
        {(f"nnc-{i}", "removed", False, True) for i in (3, 4, 5)},
    )
    assert not {f"nnc-{i}" for i in range(1, 6)} & table.bases()
    assert table.suggested("morale") == set()  # nobody else has more shock than men
    assert table.suggested("close-combat") == set()  # the nnc are gone

    # ---------------------------------------------------------------- turn 2
    moved = table.phase("artillery")
    assert moved["turn"] == 2
    state = table.state()
    # "two Actions each turn" (line 16): spent actions, the commander's and the attack order
    # (this turn's, line 128) start afresh; the rest stays.
    for unit in ("rifles", "gatling", "carbineers", "lancers"):
        assert state["units"][unit]["actions_spent"] == 0
    assert state["units"]["rifles"]["commander_actions"] == 0
    assert state["units"]["rifles"]["attack_actions"] == 0
    assert state["units"]["gatling"]["loaded"] is False  # reloaded in an action phase
    assert state["units"]["carbineers"]["mounted"] is False
    assert state["initiative"] == "zulu"
    # Dismounted, the carbineers move 6" as infantry (line 39), not 8" (line 40).
    assert _allowance(table.look("move", "carbineers")) == ("infantry", 6.0)
    # The nine-pounder: 8W6 Light Gun (line 66), 9-18": 4-6 (line 94).
    shot = table.look("shoot", "nine-pounder", "umcijo")
    assert (shot["band"], shot["dice"], shot["need"]) == ("9-18", 8, 4)
    # 4 hits: 1 kill (the umcijo's leader falls in place of a man, line 120), 3 shock points.
    table.outcome(
        "shoot",
        ("nine-pounder", "umcijo"),
        {"hits": 4, "kills": 1, "shock": 3, "removed": ["umcijo-leader"]},
        {
            ("umcijo", "shock", 2, 5),
            ("umcijo-leader", "removed", False, True),
            ("nine-pounder", "loaded", True, False),  # line 29: reload artillery piece 2
        },
    )
    # 4 men left (umcijo-4 to -7) and 5 shock points: more than its men, it retires at the
    # end of the turn, 3" per shock point over for class C (lines 154, 158).
    morale = table.look("morale", "umcijo")
    assert (morale["men"], morale["shock"], morale["status"]) == (4, 5, "retire")
    assert morale["retire"]["value"] == pytest.approx(3.0)

    table.phase("initiative")
    # british 5+1 against zulu 6: a tie, which the sheet does not break: roll again (the
    # ruleset's reading); nothing changes.
    asked = table.ask("initiative")
    tie = table.post(
        "/api/results",
        {
            "resolution": asked["log_id"],
            "decision": "confirm",
            "result": {"roll_british": 5, "roll_zulu": 6},
        },
        400,
    )
    assert "tie" in tie["error"]
    assert table.state()["initiative"] == "zulu" and table.state()["undo"]["kind"] == "phase"
    # The British still have more leaders (3 to the Zulus' 1 now): 6+1 = 7 against 3.
    table.outcome(
        "initiative",
        (),
        {"roll_british": 6, "roll_zulu": 3},
        {("game", "initiative", "zulu", "british")},
    )
    table.phase("action-1")
    assert table.state()["acting_sides"] == ["british", "zulu"]
    # "Reload Machine Gun 1" (line 30).
    table.outcome(
        "actions",
        ("gatling",),
        {"action": "reload machine gun"},
        {("gatling", "loaded", False, True), ("gatling", "actions_spent", 0, 1)},
    )
    assert table.look("shoot", "gatling", "umcijo")["allowed"] is True
    # "Limber / Unlimber 1" (line 25): limbered, the gun moves 8" (line 42) instead of 4"
    # unlimbered (line 43), and does not fire.
    assert _allowance(table.look("move", "nine-pounder")) == ("unlimbered", 4.0)
    table.outcome(
        "actions",
        ("nine-pounder",),
        {"action": "limber / unlimber"},
        {
            ("nine-pounder", "formation", "unlimbered", "limbered"),
            ("nine-pounder", "actions_spent", 0, 1),
        },
    )
    assert _allowance(table.look("move", "nine-pounder")) == ("limbered", 8.0)
    assert "nine-pounder is limbered" in table.refusal("shoot", "nine-pounder", "umcijo")
    # Shock set by hand (the unit panel): 2 shock points on the rifles cost a firing die (line
    # 81); Major Ross's "-1 Shock Point (Com.) 1" (line 32) takes one off, and the die is back.
    table.post("/api/state", {"unit": "rifles", "set": {"shock": 2}})
    assert table.look("shoot", "rifles", "umcijo")["dice"] == 12
    table.outcome(
        "actions",
        ("rifles",),
        {"action": "-1 shock point (commander)"},
        {("rifles", "shock", 2, 1), ("rifles", "commander_actions", 0, 1)},
    )
    assert table.look("shoot", "rifles", "umcijo")["dice"] == 13

    table.phase("action-2")
    table.phase("close-combat")
    assert table.suggested("close-combat") == set()
    table.phase("morale")
    assert table.suggested("morale") == {("morale", "umcijo")}
    # It retires (line 154): the camera sees where it goes; nothing the sheet keeps changes.
    table.outcome("morale", ("umcijo",), {}, set())

    # ---------------------------------------------------------------- turn 3
    assert table.phase("artillery")["turn"] == 3
    # The Gatling at the riflemen in the kraal, 20" away: 18-27" needs a 6 (line 96); a
    # fortification takes off half the dice, rounded up (line 83): 14 - 7 = 7.
    shot = table.look("shoot", "gatling", "riflemen")
    assert (shot["band"], shot["cover"], shot["dice"], shot["need"]) == (
        "18-27",
        "fortification",
        7,
        6,
    )
    table.outcome(
        "shoot",
        ("gatling", "riflemen"),
        {"hits": 1, "kills": 1, "shock": 0, "removed": ["riflemen-1"], "jammed": False},
        {("riflemen-1", "removed", False, True), ("gatling", "loaded", True, False)},
    )
    table.phase("initiative")
    # british 1+1 = 2 against zulu 5: zulu.
    table.outcome(
        "initiative",
        (),
        {"roll_british": 1, "roll_zulu": 5},
        {("game", "initiative", "british", "zulu")},
    )
    for phase in CA_PHASES[2:]:
        table.phase(phase)
    assert table.phase("artillery")["turn"] == 4

    restart_end_and_new(serve, table, tmp_path, CA, first)


def _melee_dice(answer: dict[str, Any]) -> tuple[int, int]:
    """colonial-adventure: the attacker's and the defender's close combat dice."""
    attacker, defender = answer["sides"]
    return attacker["dice"], defender["dice"]


def _allowance(answer: dict[str, Any]) -> tuple[str, float]:
    """colonial-adventure: how a unit moves, and how far a Move action takes it (inches)."""
    return answer["moves_as"], answer["allowance"]["value"]


# --------------------------------------------------------------------------------------------
# age-of-napoleon (rules/sheets/003_5b7c133d01707a77.txt, page 3 only), on 15 cm boxes. The
# demo: the Sudan, British and Egyptian regulars (d6) against the Mahdists (d3 to shoot, d6 in
# melee); the game file gives the QRC's range bands in boxes; the Gardner gun has fired 2 turns
# in a row, the Baggara have a morale check a rocket forced, the Egyptians and the Beja stand in
# adjacent boxes.

AN = "age-of-napoleon"
AN_PHASES = ["firing", "movement", "melee", "morale", "end-of-turn"]  # sections 1-5, line 13


def test_age_of_napoleon_three_turns(serve: Serve, tmp_path: Path) -> None:
    table = serve(AN, tmp_path)
    first = table.state()
    assert [p["name"] for p in first["phases"]] == AN_PHASES
    assert (first["turn"], first["phase"]) == (1, "firing")

    # ---------------------------------------------------------------- turn 1, 1. Firing (line 3)
    firing = table.suggested("firing")
    assert {("shoot", "egyptians", "beja"), ("rocket", "hale-rockets", "ansar-centre")} <= firing
    assert not {s for s in firing if s[1] == "gardner"}  # it has fired this turn (game file)
    # 1 box (short in the game's ranges): 1 die a base including the leader's (line 4), d6 for
    # regulars (line 8): 3d6.
    shot = table.look("shoot", "egyptians", "beja")
    assert (shot["boxes"], shot["band"], shot["dice"]["dice"], shot["die"]) == (1, "short", 3, "d6")
    # Melee (line 32): a die a base; the Beja fight with their melee_die d6 (line 35).
    assert _sides_dice(table.look("melee", "egyptians", "beja")) == {"egyptians": 3, "beja": 4}
    # The dice score 7 (the hits, line 5) with a 6 among them: at least 5 hits and a 6, a leader
    # check (lines 10, 37); the QRC's Unit Stats take off beja-4.
    egyptian_volley = {"hits": 7, "top_face": True, "removed": ["beja-4"]}
    egyptian_edits = {
        ("beja", "hits", 0, 7),
        ("beja-4", "removed", False, True),
        ("egyptians", "fired", False, True),  # fired this turn (line 13)
    }
    step = table.outcome("shoot", ("egyptians", "beja"), egyptian_volley, egyptian_edits)
    assert step is not None
    assert "beja-4" not in table.bases()
    # The Beja are 3 bases now: 3 dice (line 32); the Egyptians have fired: not suggested again.
    assert _sides_dice(table.look("melee", "egyptians", "beja")) == {"egyptians": 3, "beja": 3}
    assert not {s for s in table.suggested("firing") if s[1] == "egyptians"}
    # One Undo takes the whole shot back.
    table.undo(step)
    assert "beja-4" in table.bases()
    assert _sides_dice(table.look("melee", "egyptians", "beja")) == {"egyptians": 3, "beja": 4}
    assert ("shoot", "egyptians", "beja") in table.suggested("firing")
    preview = table.post(
        "/api/outcome",
        {"action": "shoot", "args": ["egyptians", "beja"], "result": egyptian_volley},
    )
    assert any("Leader Hits Table" in line for line in preview["lines"])  # line 37
    table.outcome("shoot", ("egyptians", "beja"), egyptian_volley, egyptian_edits)

    # A rocket lands on its target on a 5 or 6 (line 20): no hits, a morale check at -1 for
    # infantry (line 22).
    table.outcome(
        "rocket",
        ("hale-rockets", "ansar-centre"),
        {"landed_on": "ansar-centre"},
        {("ansar-centre", "rocket_checks", 0, 1), ("hale-rockets", "fired", False, True)},
    )
    morale = table.look("morale", "ansar-centre")
    assert (morale["rocket_checks"], morale["rocket_modifier"]["value"]) == (1, -1)  # line 22

    # Natives shoot d3 (line 9): the Jihadiya's 3 bases (line 4), 3.5 boxes (1 diagonal and 2
    # straight, line 18): long. They score 5 with a 3 among the dice: a leader check (line 10),
    # and sikhs-4 comes off.
    shot = table.look("shoot", "jihadiya", "sikhs")
    assert (shot["boxes"], shot["band"], shot["dice"]["dice"], shot["die"]) == (
        3.5,
        "long",
        3,
        "d3",
    )
    assert table.look("shoot", "sikhs", "jihadiya")["dice"]["dice"] == 4  # line 4
    table.outcome(
        "shoot",
        ("jihadiya", "sikhs"),
        {"hits": 5, "top_face": True, "removed": ["sikhs-4"]},
        {
            ("sikhs", "hits", 0, 5),
            ("sikhs-4", "removed", False, True),
            ("jihadiya", "fired", False, True),
        },
    )
    assert table.look("shoot", "sikhs", "jihadiya")["dice"]["dice"] == 3  # one base fewer

    # ---------------------------------------------------------------- 2. Movement (line 24)
    table.phase("movement")
    assert ("move", "hussars") in table.suggested("movement")
    table.outcome("move", ("hussars",), {}, {("hussars", "moved", False, True)})
    assert ("move", "hussars") not in table.suggested("movement")

    # ---------------------------------------------------------------- 3. Melee (line 32)
    table.phase("melee")
    assert table.suggested("melee") == {("melee", "egyptians", "beja")}
    # The Beja's 3d6 (3 bases left) total 4 on the Egyptians, no 6; the Egyptians' 3d6 total 6
    # on the Beja with a 6 (a leader check, line 37: one top face is enough in melee). The
    # hits add to those taken before (lines 5, 34); a base of each comes off.
    table.outcome(
        "melee",
        ("egyptians", "beja"),
        {
            "hits_on_a": 4,
            "top_face_by_b": False,
            "hits_on_b": 6,
            "top_face_by_a": True,
            "removed_a": ["egyptians-3"],
            "removed_b": ["beja-3"],
        },
        {
            ("egyptians", "hits", 0, 4),
            ("beja", "hits", 7, 13),
            ("egyptians-3", "removed", False, True),
            ("beja-3", "removed", False, True),
        },
    )
    assert _sides_dice(table.look("melee", "egyptians", "beja")) == {"egyptians": 2, "beja": 2}

    # ---------------------------------------------------------------- 5. Morale (line 39)
    table.phase("morale")
    assert table.suggested("morale") == {("morale", "baggara"), ("morale", "ansar-centre")}
    # The Baggara's check (game file), -2 for cavalry (line 23); the QRC leaves them steady.
    assert table.look("morale", "baggara")["rocket_modifier"]["value"] == -2
    table.outcome("morale", ("baggara",), {"broken": False}, {("baggara", "rocket_checks", 1, 0)})
    # The Ansar's check, -1 for infantry (line 22); the QRC breaks them (line 6: broken).
    table.outcome(
        "morale",
        ("ansar-centre",),
        {"broken": True},
        {("ansar-centre", "rocket_checks", 1, 0), ("ansar-centre", "broken", False, True)},
    )
    assert table.look("morale", "ansar-centre")["broken"] is True
    assert table.suggested("morale") == set()

    # ---------------------------------------------------------------- end of the turn (line 13)
    table.phase("end-of-turn")
    assert table.suggested("end-of-turn") == {("overheat", "gardner")}
    # Fired 2 turns in a row: 1d6, it overheats on 2 or less (line 14). A 2: it overheats, and
    # rests: it may not fire for 1 turn (line 16); its run of turns firing ends.
    table.outcome(
        "overheat",
        ("gardner",),
        {"score": 2, "if_overheated": "rest"},
        {("gardner", "gun_state", "ok", "cooling"), ("gardner", "consecutive_fire", 2, 0)},
    )

    # ---------------------------------------------------------------- turn 2
    assert table.phase("firing")["turn"] == 2
    state = table.state()
    for unit in ("egyptians", "hale-rockets", "jihadiya", "gardner"):
        assert state["units"][unit]["fired"] is False  # fired this turn: afresh
    assert state["units"]["hussars"]["moved"] is False
    assert state["units"]["beja"]["hits"] == 13 and state["units"]["gardner"]["gun_state"] == (
        "cooling"
    )
    # "it may not fire for 1 turn" (line 16).
    assert "it may not fire this turn" in table.refusal("shoot", "gardner", "jihadiya")
    assert not {s for s in table.suggested("firing") if s[1] == "gardner"}
    # The field battery (2 bases, d6) at the Ansar 4 boxes away (medium): 2d6 score 3, no 6.
    shot = table.look("shoot", "field-battery", "ansar-centre")
    assert (shot["boxes"], shot["band"], shot["dice"]["dice"]) == (4, "medium", 2)
    table.outcome(
        "shoot",
        ("field-battery", "ansar-centre"),
        {"hits": 3, "top_face": False, "removed": []},
        {("ansar-centre", "hits", 0, 3), ("field-battery", "fired", False, True)},
    )
    table.phase("movement")
    table.outcome("move", ("black-watch",), {}, {("black-watch", "moved", False, True)})
    for phase in ("melee", "morale", "end-of-turn"):
        table.phase(phase)
    # No check for a gun that rests: it cools down and is ok (line 16).
    table.outcome("overheat", ("gardner",), {}, {("gardner", "gun_state", "cooling", "ok")})

    # ---------------------------------------------------------------- turn 3
    assert table.phase("firing")["turn"] == 3
    # Ok again, the gun fires: 1 base, 1d6 (line 4), 4 boxes (long, out to 5).
    shot = table.look("shoot", "gardner", "jihadiya")
    assert (shot["allowed"], shot["boxes"], shot["dice"]["dice"]) == (True, 4, 1)
    table.outcome(
        "shoot",
        ("gardner", "jihadiya"),
        {"hits": 4, "top_face": False, "removed": []},
        {
            ("jihadiya", "hits", 0, 4),
            ("gardner", "fired", False, True),
            ("gardner", "consecutive_fire", 0, 1),  # its first turn firing (line 14)
        },
    )
    for phase in AN_PHASES[1:]:
        table.phase(phase)
    # One turn of firing: checks begin after 2 consecutive turns (line 13): no dice, no change.
    assert table.look("overheat", "gardner")["check"] is False
    table.outcome("overheat", ("gardner",), {}, set())
    assert table.phase("firing")["turn"] == 4

    restart_end_and_new(serve, table, tmp_path, AN, first)


def _sides_dice(answer: dict[str, Any]) -> dict[str, int]:
    """age-of-napoleon: each side's melee dice."""
    return {unit: side["dice"]["dice"] for unit, side in answer["sides"].items()}


# --------------------------------------------------------------------------------------------
# europe-19c (rules/sheets/004_8318ee244ed3ffb0.txt), in cm. The demo: Koniggratz, Prussia
# against Austria across the Bistritz; the turn under way: the Kuerassiere charged the Landwehr
# across the brook (in contact), the Grenadiers lost a base to fire (one morale test to take).

EU = "europe-19c"
EU_PHASES = ["change-formation", "charge", "movement", "firing", "hand-to-hand"]  # lines 7-11


def test_europe_19c_three_turns(serve: Serve, tmp_path: Path) -> None:
    table = serve(EU, tmp_path)
    first = table.state()
    assert [p["name"] for p in first["phases"]] == EU_PHASES
    assert (first["turn"], first["phase"]) == (1, "change-formation")

    # ---------------------------------------------------------------- turn 1, Change Formation
    suggested = table.suggested("change-formation")
    assert {("command", "hq-prussia"), ("command", "hq-austria")} <= suggested
    assert {("formation", "landwehr"), ("morale", "grenadiers")} <= suggested
    # Command roll (lines 143-149): a good leader in the standard game, 5-6: 8.
    table.outcome(
        "command", ("hq-prussia",), {"roll": "5-6"}, {("hq-prussia", "command_score", 0, 8)}
    )
    # A poor leader, 1-2: 2 (line 147).
    table.outcome(
        "command", ("hq-austria",), {"roll": "1-2"}, {("hq-austria", "command_score", 0, 2)}
    )
    suggested = table.suggested("change-formation")
    assert not {("command", "hq-prussia"), ("command", "hq-austria")} & suggested  # rolled

    # The Landwehr (loose order, column) form line (line 15). Before: "Infantry Col" fires at
    # cavalry on 4+ (line 85); the Kuerassiere (3 bases) roll 2 dice a base against "Inf Col."
    # (line 101).
    shot = table.look("shoot", "landwehr", "kuerassiere")
    assert (shot["firer_class"]["row"], shot["rolls"][0]["dice"], shot["rolls"][0]["need"]) == (
        "Infantry Col",
        3,  # 3 bases, Rifled Musket 1 die (line 69)
        4,
    )
    assert _dice(table.look("melee", "kuerassiere", "landwehr")) == (6, 6)
    table.outcome(
        "formation",
        ("landwehr",),
        {"formation": "line"},
        {("landwehr", "formation", "column", "line")},
    )
    # In line: "Inf line, Art" hits cavalry on 2+ (line 83); cavalry roll 3 a base against
    # "Inf Ln" (line 101): 9; the defenders still 1 a base (line 112) +1 defending the
    # riverbank frontally (line 114): 6. "Infantry in Line: May not move" (line 17).
    shot = table.look("shoot", "landwehr", "kuerassiere")
    assert (shot["firer_class"]["row"], shot["rolls"][0]["need"]) == ("Inf line, Art", 2)
    assert _dice(table.look("melee", "kuerassiere", "landwehr")) == (9, 6)
    assert table.look("move", "landwehr")["may_move"] is False

    # The Grenadiers' test for the base lost (line 130): average, 4+ (line 137). It fails:
    # "Remove a base" (line 141); the test is taken.
    morale = table.look("morale", "grenadiers")
    assert (morale["tests"], morale["need"]) == (1, 4)
    assert table.look("shoot", "grenadiers", "regiment-kaiser")["rolls"][0]["dice"] == 8
    table.outcome(
        "morale",
        ("grenadiers",),
        {"failed": 1, "removed": ["grenadiers-4"]},
        {("grenadiers-4", "removed", False, True), ("grenadiers", "bases_removed", 1, 0)},
    )
    assert "grenadiers-4" not in table.bases()
    assert table.look("morale", "grenadiers")["tests"] == 0
    # Early breech-loader, 2 dice a base (line 68): 3 bases, 6 dice.
    assert table.look("shoot", "grenadiers", "regiment-kaiser")["rolls"][0]["dice"] == 6

    # ---------------------------------------------------------------- Charge Sequence (line 8)
    table.phase("charge")
    # Cavalry may charge cavalry (line 28), 15 cm away: within a cavalry move in the open,
    # 16 cm (lines 38, 46).
    charge = table.look("charge", "hussars", "uhlanen")
    assert (charge["allowed"], charge["charge_table"]["entry"]) == (True, "yes")
    table.outcome(
        "charge",
        ("hussars", "uhlanen"),
        {"contact": True},
        {("hussars", "charged", False, True), ("hussars", "moved", False, True)},
    )
    assert not {s for s in table.suggested("charge") if s[1] == "hussars"}

    # ---------------------------------------------------------------- Movement (line 9)
    table.phase("movement")
    movement = table.suggested("movement")
    assert ("move", "garde-fusiliers") in movement and ("move", "hussars") not in movement
    assert table.look("move", "garde-fusiliers")["allowance"]["value"] == 8  # Inf (CO), line 44
    table.outcome("move", ("garde-fusiliers",), {}, {("garde-fusiliers", "moved", False, True)})
    # Unlimbered artillery may not move but may pivot (line 23); a pivoting battery cannot fire
    # (line 78).
    assert table.look("shoot", "krupp", "regiment-kaiser")["allowed"] is True
    step = table.outcome(
        "move",
        ("krupp",),
        {"pivoted": True},
        {("krupp", "moved", False, True), ("krupp", "pivoted", False, True)},
    )
    assert step is not None
    assert "pivoted this turn (004_8318ee244ed3ffb0.txt:78)" in table.refusal(
        "shoot", "krupp", "regiment-kaiser"
    )
    # One Undo takes the pivot and the move back together: the battery may fire.
    table.undo(step)
    assert table.look("shoot", "krupp", "regiment-kaiser")["allowed"] is True

    # ---------------------------------------------------------------- Firing (line 10)
    table.phase("firing")
    # Steel Rifled Artillery, 60 cm, 4 dice (line 63); "Inf line, Art" against close order
    # infantry in line, Normal (line 87): 4+ (line 83); in the open against a cannon: no save
    # (All else, line 96).
    shot = table.look("shoot", "krupp", "regiment-kaiser")
    assert (shot["rolls"][0]["dice"], shot["rolls"][0]["need"], shot["save"]["need"]) == (
        4,
        4,
        None,
    )
    assert table.look("shoot", "regiment-kaiser", "grenadiers")["rolls"][0]["dice"] == 4
    # 1 hit: a base off, a morale test (line 130).
    table.outcome(
        "shoot",
        ("krupp", "regiment-kaiser"),
        {"hits": 1, "removed": ["regiment-kaiser-4"]},
        {
            ("krupp", "fired", False, True),
            ("regiment-kaiser-4", "removed", False, True),
            ("regiment-kaiser", "bases_removed", 0, 1),
        },
    )
    # The Grenadiers' 6 dice, 4+; breech-loaders against infantry in line in the open save on
    # 5+ (Sk or Ln, line 96). 3 hits, 1 saved: 2 bases off.
    shot = table.look("shoot", "grenadiers", "regiment-kaiser")
    assert (shot["rolls"][0]["dice"], shot["rolls"][0]["need"], shot["save"]["need"]) == (6, 4, 5)
    table.outcome(
        "shoot",
        ("grenadiers", "regiment-kaiser"),
        {"hits": 3, "saved": 1, "removed": ["regiment-kaiser-2", "regiment-kaiser-3"]},
        {
            ("grenadiers", "fired", False, True),
            ("regiment-kaiser-2", "removed", False, True),
            ("regiment-kaiser-3", "removed", False, True),
            ("regiment-kaiser", "bases_removed", 1, 3),
        },
    )
    assert not {"regiment-kaiser-2", "regiment-kaiser-3", "regiment-kaiser-4"} & table.bases()
    # Rifled Musket, 1 die a base (line 69): 1 base left, 1 die.
    assert table.look("shoot", "regiment-kaiser", "grenadiers")["rolls"][0]["dice"] == 1
    assert table.look("morale", "regiment-kaiser")["tests"] == 3
    # The Landwehr, in line, at the Kuerassiere in contact: 3 dice, 2+ (line 83), no save for a
    # rifled musket (All else, Open: None, line 96). 1 hit: a base off, and the charging
    # cavalry fired on by its target test (line 131).
    table.outcome(
        "shoot",
        ("landwehr", "kuerassiere"),
        {"hits": 1, "removed": ["kuerassiere-3"]},
        {
            ("landwehr", "fired", False, True),
            ("kuerassiere-3", "removed", False, True),
            ("kuerassiere", "bases_removed", 0, 1),
            ("kuerassiere", "fired_on", False, True),
        },
    )
    assert ("shoot", "landwehr", "kuerassiere") not in table.suggested("firing")  # it fired

    # ---------------------------------------------------------------- Hand-to-Hand (line 11)
    table.phase("hand-to-hand")
    assert ("melee", "kuerassiere", "landwehr") in table.suggested("hand-to-hand")
    # 2 bases x 3 against 3 x 2 (lines 101, 112, 114). The Kuerassiere score 2 hits, the
    # Landwehr 4: the unit taking the most hits retreats 12 cm (line 120) and takes two tests
    # (line 132).
    assert _dice(table.look("melee", "kuerassiere", "landwehr")) == (6, 6)
    table.outcome(
        "melee",
        ("kuerassiere", "landwehr"),
        {"attacker_hits": 2, "defender_hits": 4, "retreat_blocked": False},
        {("kuerassiere", "lost_melee", False, True)},
    )
    # Tests: 1 base removed, fired on while charging, lost hand-to-hand (two) = 4 (lines
    # 130-132); fanatic, 2+ (line 135).
    morale = table.look("morale", "kuerassiere")
    assert (morale["tests"], morale["need"]) == (4, 2)
    table.outcome(
        "morale",
        ("kuerassiere",),
        {"failed": 1, "removed": ["kuerassiere-2"]},
        {
            ("kuerassiere-2", "removed", False, True),
            ("kuerassiere", "bases_removed", 1, 0),
            ("kuerassiere", "fired_on", True, False),
            ("kuerassiere", "lost_melee", True, False),
        },
    )
    assert table.look("morale", "kuerassiere")["tests"] == 0
    # The Austrians' three tests, all passed: taken, no base lost.
    table.outcome(
        "morale",
        ("regiment-kaiser",),
        {"failed": 0, "removed": []},
        {("regiment-kaiser", "bases_removed", 3, 0)},
    )

    # ---------------------------------------------------------------- turn 2
    assert table.phase("change-formation")["turn"] == 2
    state = table.state()
    # What was this turn's starts afresh: the command scores, charged, moved, fired.
    assert state["units"]["hq-prussia"]["command_score"] == 0
    assert (state["units"]["hussars"]["charged"], state["units"]["hussars"]["moved"]) == (
        False,
        False,
    )
    assert state["units"]["kuerassiere"]["charged"] is False  # the game file's charge
    assert state["units"]["grenadiers"]["fired"] is False
    assert state["units"]["landwehr"]["formation"] == "line"  # kept
    assert {("command", "hq-prussia"), ("command", "hq-austria")} <= table.suggested(
        "change-formation"
    )
    # "Limbered Artillery: Can not fire" (line 21); unlimbered (line 19) it fires and "Can not
    # move but may pivot" (line 23).
    assert "can not fire (004_8318ee244ed3ffb0.txt:21)" in table.refusal(
        "shoot", "feldbatterie", "regiment-hess"
    )
    assert table.look("move", "feldbatterie")["may_move"] is True
    table.outcome(
        "formation",
        ("feldbatterie",),
        {"formation": "unlimbered"},
        {("feldbatterie", "formation", "limbered", "unlimbered")},
    )
    assert table.look("move", "feldbatterie")["may_move"] is False
    table.outcome(
        "command", ("hq-prussia",), {"roll": "3-4"}, {("hq-prussia", "command_score", 0, 7)}
    )  # good, standard, 3-4: 7 (line 148)
    for phase in ("charge", "movement", "firing"):
        table.phase(phase)
    # Bronze Rifled Artillery, 48 cm, 3 dice (line 64), "Inf line, Art" against close order
    # infantry in column, "CO If Col": 3+ (line 83).
    shot = table.look("shoot", "feldbatterie", "regiment-hess")
    assert (shot["allowed"], shot["rolls"][0]["dice"], shot["rolls"][0]["need"]) == (True, 3, 3)
    table.outcome(
        "shoot",
        ("feldbatterie", "regiment-hess"),
        {"hits": 2, "removed": ["regiment-hess-3", "regiment-hess-4"]},
        {
            ("feldbatterie", "fired", False, True),
            ("regiment-hess-3", "removed", False, True),
            ("regiment-hess-4", "removed", False, True),
            ("regiment-hess", "bases_removed", 0, 2),
        },
    )
    table.phase("hand-to-hand")

    # ---------------------------------------------------------------- turn 3
    assert table.phase("change-formation")["turn"] == 3
    table.outcome(
        "command", ("hq-austria",), {"roll": "5-6"}, {("hq-austria", "command_score", 0, 4)}
    )  # poor, standard, 5-6: 4 (line 149)
    for phase in EU_PHASES[1:]:
        table.phase(phase)
    assert table.phase("change-formation")["turn"] == 4

    restart_end_and_new(serve, table, tmp_path, EU, first)


def _dice(answer: dict[str, Any]) -> tuple[int, int]:
    """europe-19c: the attacker's and the defender's hand-to-hand dice."""
    attacker, defender = answer["rolls"][:2]
    return attacker["dice"], defender["dice"]
