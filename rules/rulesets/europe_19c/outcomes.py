"""europe-19c's outcomes: what the players report after rolling each action's dice, and the
changes of state it leads to (README.md, "Outcomes")."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ... import dice as dice_math
from ...answer import Cite
from ...engine import OutcomeRule, expect_args
from ...errors import QuestionError
from ...measure import table_of
from ...scene import Base, Scene, Unit
from ...state import Change, Kind, Report, Scope
from .sheet import (
    CITE,
    COMMAND,
    DATA,
    FIRING,
    ID,
    MORALE,
    NUMBERS,
    contact,
    count,
    flag,
    in_contact,
    kind_of,
)

if TYPE_CHECKING:
    from .ruleset import Europe19c, Shot

Args = Sequence[str]
Reported = Mapping[str, Any]
PHASE = {p["name"]: p["cite"] for p in DATA["phases"]}
"""Each step of the sequence of play's line: what a unit did this turn is set by its step."""


def rules(rs: Europe19c) -> dict[str, OutcomeRule]:
    """The actions whose dice change the game: the form the players fill, what it changes."""

    def shoot_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """Hits (the firing table's need), saves (one die a hit, when the target has a save)
        and the bases taken off, one for each unsaved hit (lines 80-96, 130)."""
        shot = _shot(rs, scene, args)
        if not shot.allowed or shot.save is None:
            return ()
        save_need, _, save_cite = shot.save
        hits = _likeliest(dice_math.successes(shot.dice, 6, shot.need))
        why = f"hits: the dice of the {shot.dice}D6 showing {shot.need}+ ({shot.row_note})"
        row_cite = FIRING["rows"][shot.row]["cite"]
        reports = [Report("hits", Kind.COUNT, why, row_cite, maximum=shot.dice, default=hits)]
        saves = 0
        if save_need is not None:
            saves = _likeliest(dice_math.successes(hits, 6, save_need))
            why = f"saves: the saving dice (one a hit) showing {save_need}+"
            reports.append(
                Report("saved", Kind.COUNT, why, save_cite, maximum=shot.dice, default=saves)
            )
        reports.append(_bases_report(shot.target, hits - saves, "one for each unsaved hit"))
        return tuple(reports)

    def shoot_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        shot = _shot(rs, scene, args)
        if not shot.allowed:
            return ()
        firer, target = shot.firer, shot.target
        hits, saved = int(reported["hits"]), int(reported.get("saved", 0))
        if saved > hits:
            raise QuestionError(
                f"{ID} shoot {' '.join(args)}: {saved} saves for {hits} hits; a saving die is "
                f"rolled for each hit ({DATA['saves']['terrain']['open']['cite']})"
            )
        lost = _check_removed(target, reported["removed"], hits - saved, "unsaved hits")
        changes = [Change(firer.id, "fired", True, "fired this turn", PHASE["firing"])]
        changes += _removals(lost, f"unsaved hit from {firer.id}", CITE["base_removed"])
        if lost:
            why = f"{len(lost)} base(s) removed: a morale test each"
            after = count(target, "bases_removed") + len(lost)
            changes.append(Change(target.id, "bases_removed", after, why, CITE["base_removed"]))
        # Charging cavalry in contact with the firer it charged is fired on by its target.
        table = table_of(scene)
        touching = in_contact(contact(table, table.unit_distance(firer, target)))
        charging = touching and kind_of(target) == "cavalry" and flag(target, "charged")
        if charging and not flag(target, "fired_on"):
            why = f"charging cavalry fired on by its target {firer.id}: a morale test"
            changes.append(Change(target.id, "fired_on", True, why, CITE["fired_on"]))
        return tuple(changes)

    def command_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """The row of the command table the leader's D6 fell in (lines 145-149)."""
        rs.command(scene, args)  # the same checks as the question
        why = "the command D6: 1-2, 3-4 or 5-6 (a row of the command table)"
        rows = tuple(row["roll"] for row in COMMAND)
        return (Report("roll", Kind.CHOICE, why, CITE["command"], choices=rows, default=rows[1]),)

    def command_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        data = rs.command(scene, args).data
        row = next(r for r in COMMAND if r["roll"] == reported["roll"])
        score = next(o["score"] for o in data["outcomes"] if o["roll"] == row["roll"])
        why = f"rolled {row['roll']}: {data['rating']} leader, {data['game_size']} game"
        return (Change(str(data["leader"]), "command_score", int(score), why, row["cite"]),)

    def charge_facts(scene: Scene, args: Args) -> tuple[Unit, Unit, bool, bool]:
        """(attacker, target, allowed, possible): `possible` when the charge is allowed or is
        refused only for a move to contact too close to call (the players judge it)."""
        names = expect_args("charge", args, ("ATTACKER", "TARGET"))
        attacker, target = (scene.unit_of(i) for i in names)
        data = rs.charge(scene, args).data
        allowed = bool(data["allowed"])
        close = data["move"] is not None and data["move"]["verdict"] == "too close to call"
        only_reach = all(r["source"] == str(CITE["contact"]) for r in data["reasons"])
        return attacker, target, allowed, allowed or (close and only_reach)

    def charge_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """Whether the charger reached base contact (line 38); nothing for a refused charge."""
        _, target, allowed, possible = charge_facts(scene, args)
        if not possible:
            return ()
        why = f"the charger moved into base contact with {target.id}"
        return (Report("contact", Kind.FLAG, why, CITE["contact"], default=allowed),)

    def charge_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        attacker, target, _, possible = charge_facts(scene, args)
        if not possible:
            return ()
        moved = Change(
            attacker.id, "moved", True, "its move this turn was the charge", CITE["contact"]
        )
        if not reported["contact"]:
            return (moved,)
        return (
            Change(attacker.id, "charged", True, f"charged {target.id}", PHASE["charge"]),
            moved,
        )

    def melee_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """The hits each side scored (4+ a die, line 98) and whether the loser's retreat is
        blocked (line 121)."""
        data = rs.melee(scene, args).data
        reports = []
        need = NUMBERS["melee_hit_need"]
        sides = (("attacker_hits", data["attacker"]), ("defender_hits", data["defender"]))
        for (name, unit_id), roll in zip(sides, data["rolls"], strict=True):
            dice = int(roll["dice"])
            why = f"hits scored by {unit_id}: the dice of its {dice}D6 showing {need}+"
            likely = _likeliest(dice_math.successes(dice, 6, need))
            reports.append(
                Report(name, Kind.COUNT, why, CITE["melee_hit"], maximum=dice, default=likely)
            )
        why = (
            f"the loser's {NUMBERS['retreat_cm']} cm retreat facing the enemy is blocked "
            "(it is eliminated)"
        )
        reports.append(Report("retreat_blocked", Kind.FLAG, why, CITE["blocked"], default=False))
        return tuple(reports)

    def melee_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        """The side that took more hits loses, a tie the defender (lines 120-122)."""
        names = expect_args("melee", args, ("ATTACKER", "DEFENDER"))
        attacker, defender = (scene.unit_of(i) for i in names)
        rs.melee(scene, args)  # the same checks as the question
        by_attacker, by_defender = int(reported["attacker_hits"]), int(reported["defender_hits"])
        if by_attacker > by_defender:
            loser, why, cite = defender, f"took {by_attacker} hits to {by_defender}", "retreat"
        elif by_attacker == by_defender:
            loser, why, cite = defender, f"a tie at {by_attacker} hits: the defender", "tie"
        else:
            loser, why, cite = attacker, f"took {by_defender} hits to {by_attacker}", "retreat"
        if kind_of(loser) == "artillery":
            why = f"{why}; artillery that lose are eliminated"
            return _removals(loser.bases, why, CITE["artillery_eliminated"])
        if reported["retreat_blocked"]:
            return _removals(loser.bases, f"{why}; its retreat is blocked", CITE["blocked"])
        why = (
            f"lost hand-to-hand ({why}): retreats {NUMBERS['retreat_cm']} cm facing the enemy "
            "and takes two morale tests"
        )
        return (Change(loser.id, "lost_melee", True, why, CITE[cite]),)

    def move_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """Artillery: whether it pivoted (it then cannot fire, line 78); nothing else to say."""
        (name,) = expect_args("move", args, ("UNIT",))
        unit = scene.unit_of(name)
        rs.move(scene, args)  # the same checks as the question
        if kind_of(unit) != "artillery":
            return ()
        why = "the battery pivoted (it cannot fire this turn)"
        return (Report("pivoted", Kind.FLAG, why, CITE["pivoted"], default=False),)

    def move_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        (name,) = expect_args("move", args, ("UNIT",))
        unit = scene.unit_of(name)
        changes = [Change(unit.id, "moved", True, "moved this turn", PHASE["movement"])]
        if reported.get("pivoted") and not flag(unit, "pivoted"):
            why = "pivoted: it cannot fire this turn"
            changes.append(Change(unit.id, "pivoted", True, why, CITE["pivoted"]))
        return tuple(changes)

    def morale_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """The tests failed (a D6 under the level's score each) and the bases they take off
        (line 141); nothing when the unit's state gives no reason to test."""
        data = rs.morale(scene, args).data
        tests = int(data["tests"])
        if not tests:
            return ()
        unit = scene.unit_of(args[0])
        failed = _likeliest(tuple(Fraction(p) for p in data["bases_lost"]["exact"]))
        why = f"tests failed: the {tests} D6 showing under {data['need']}"
        cite = MORALE[str(data["level"])]["cite"]
        return (
            Report("failed", Kind.COUNT, why, cite, maximum=tests, default=failed),
            _bases_report(unit, failed, "one for each failed test", CITE["failure"], tests),
        )

    def morale_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        """The bases the failed tests take off; the tests are taken (lines 130-132, 141)."""
        if not rs.morale(scene, args).data["tests"]:
            return ()
        unit = scene.unit_of(args[0])
        lost = _check_removed(unit, reported["removed"], int(reported["failed"]), "failed tests")
        changes = list(_removals(lost, "failed a morale test", CITE["failure"]))
        taken = "its tests are taken"
        if count(unit, "bases_removed"):
            changes.append(Change(unit.id, "bases_removed", 0, taken, CITE["base_removed"]))
        for key in ("fired_on", "lost_melee"):
            if flag(unit, key):
                changes.append(Change(unit.id, key, False, taken, CITE[key]))
        return tuple(changes)

    def formation_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """The formation the unit is in now (lines 15, 19); nothing for a type with none."""
        data = rs.formation(scene, args).data
        options = tuple(data["formations"])
        if not options:
            return ()
        kind = kind_of(scene.unit_of(args[0]))
        why = f"the formation it is in now: {' or '.join(options)}"
        cite = CITE[f"{kind}_formations"]
        default = data["may_change_to"][0]
        return (Report("formation", Kind.CHOICE, why, cite, choices=options, default=default),)

    def formation_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        data = rs.formation(scene, args).data
        before = data["formation"]
        after = reported.get("formation", before)
        if after == before:
            return ()
        why = f"changed formation from {before} to {after}"
        return (Change(str(data["unit"]), "formation", after, why, PHASE["change-formation"]),)

    return {
        "shoot": OutcomeRule(shoot_form, shoot_apply),
        "command": OutcomeRule(command_form, command_apply),
        "charge": OutcomeRule(charge_form, charge_apply),
        "melee": OutcomeRule(melee_form, melee_apply),
        "move": OutcomeRule(move_form, move_apply),
        "morale": OutcomeRule(morale_form, morale_apply),
        "formation": OutcomeRule(formation_form, formation_apply),
    }


def _shot(rs: Europe19c, scene: Scene, args: Args) -> Shot:
    firer, target = (scene.unit_of(i) for i in expect_args("shoot", args, ("SHOOTER", "TARGET")))
    return rs.shot(table_of(scene), firer, target)


def _likeliest(dist: Sequence[Fraction]) -> int:
    """The most likely number of successes (the lowest of equals): what a form shows first."""
    return max(range(len(dist)), key=lambda k: (dist[k], -k))


def _bases_report(
    unit: Unit, likely: int, why: str, cite: Cite = CITE["base_removed"], most: int | None = None
) -> Report:
    """Which bases of `unit` the players take off; first shown: its last `likely` bases."""
    ids = tuple(b.id for b in unit.bases)
    shown = ids[len(ids) - min(likely, len(ids)) :] if likely > 0 else ()
    return Report(
        "removed",
        Kind.BASES,
        f"bases of {unit.id} taken off: {why}",
        cite,
        maximum=len(ids) if most is None else min(most, len(ids)),
        unit=unit.id,
        bases=ids,
        default=shown,
    )


def _check_removed(unit: Unit, removed: Sequence[str], count: int, what: str) -> list[Base]:
    """The bases named, when they are as many as `count` calls for (all the unit's bases at
    most); a `QuestionError` otherwise."""
    wanted = min(count, len(unit.bases))
    if len(removed) != wanted:
        raise QuestionError(
            f"{ID}: {count} {what} take off {wanted} base(s) of {unit.id}; "
            f"{len(removed)} named ({', '.join(removed) or 'none'})"
        )
    return [b for b in unit.bases if b.id in set(removed)]


def _removals(bases: Iterable[Base], why: str, cite: Cite) -> tuple[Change, ...]:
    """Each base taken off the table."""
    return tuple(Change(b.id, "removed", True, why, cite, Scope.BASE) for b in bases)
