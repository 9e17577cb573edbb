"""europe-19c's outcomes: what the players report after rolling each question's dice, and the
changes of state it leads to (README.md, "Outcomes")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from ... import dice as dice_math
from ...answer import Cite
from ...engine import OutcomeRule, expect_args
from ...errors import QuestionError
from ...measure import table_of
from ...scene import Scene, Unit
from ...state import Change, Kind, Report, likeliest, removals
from .ruleset import CITE, DATA, ID, NUMBERS, Europe19c, contact, count, flag, in_contact, kind_of

Args = Sequence[str]
Reported = Mapping[str, Any]
STEP = {p["name"]: p["cite"] for p in DATA["phases"]}
"""The line of each step of the sequence of play: what a unit did this turn is set by its step."""


def outcome_rules(rs: Europe19c) -> dict[str, OutcomeRule]:
    """The questions whose dice change the game: the form the players fill, what it changes."""

    def shoot_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """Hits (the firing table's need), saves (one die a hit, when the target has a save)
        and the bases taken off, one for each unsaved hit (lines 80-96, 130)."""
        shot = rs.shot(scene, args)
        if not shot.allowed or shot.save is None:
            return ()
        (dice, need), (save_need, _, save_cite) = (shot.dice, shot.need), shot.save
        label = f"hits: the dice of the {dice}D6 showing {need}+ ({shot.row_note})"
        reports = [_successes("hits", label, DATA["firing"]["rows"][shot.row]["cite"], dice, need)]
        hits, saves = likeliest(dice_math.successes(dice, 6, need)), 0
        if save_need is not None:
            label = f"saves: the saving dice (one a hit) showing {save_need}+"
            reports.append(_successes("saved", label, save_cite, hits, save_need, most=dice))
            saves = likeliest(dice_math.successes(hits, 6, save_need))
        return (*reports, _bases_report(shot.target, hits - saves, "one for each unsaved hit"))

    def shoot_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        shot = rs.shot(scene, args)
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
        changes = [Change(firer.id, "fired", True, "fired this turn", STEP["firing"])]
        changes += removals(lost, f"unsaved hit from {firer.id}", CITE["base_removed"])
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
        label = "the command D6: 1-2, 3-4 or 5-6 (a row of the command table)"
        rows = tuple(row["roll"] for row in DATA["command"])
        return (Report("roll", Kind.CHOICE, label, CITE["command"], choices=rows, default=rows[1]),)

    def command_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        data = rs.command(scene, args).data
        row = next(r for r in DATA["command"] if r["roll"] == reported["roll"])
        score = next(o["score"] for o in data["outcomes"] if o["roll"] == row["roll"])
        why = f"rolled {row['roll']}: {data['rating']} leader, {data['game_size']} game"
        return (Change(str(data["leader"]), "command_score", int(score), why, row["cite"]),)

    def charge_facts(scene: Scene, args: Args) -> tuple[Mapping[str, Any], bool]:
        """The charge, and whether the players are asked: when it is allowed or refused only
        for a move to contact too close to call (they judge it)."""
        data = rs.charge(scene, args).data
        close = data["move"] is not None and data["move"]["verdict"] == "too close to call"
        only_reach = all(r["source"] == str(CITE["contact"]) for r in data["reasons"])
        return data, bool(data["allowed"]) or (close and only_reach)

    def charge_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """Whether the charger reached base contact (line 38); nothing for a refused charge."""
        data, asked = charge_facts(scene, args)
        label = f"the charger moved into base contact with {data['target']}"
        flag_ = Report("contact", Kind.FLAG, label, CITE["contact"], default=data["allowed"])
        return (flag_,) if asked else ()

    def charge_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        data, asked = charge_facts(scene, args)
        attacker, target = data["attacker"], data["target"]
        why = "its move this turn was the charge"
        moved = Change(attacker, "moved", True, why, CITE["contact"])
        charged = Change(attacker, "charged", True, f"charged {target}", STEP["charge"])
        return () if not asked else (charged, moved) if reported["contact"] else (moved,)

    def melee_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """The hits each side scored (4+ a die, line 98) and whether the loser's retreat is
        blocked (line 121)."""
        data, need = rs.melee(scene, args).data, NUMBERS["melee_hit_need"]
        reports = []
        for name, roll in zip(("attacker", "defender"), data["rolls"], strict=True):
            dice = int(roll["dice"])
            label = f"hits scored by {data[name]}: the dice of its {dice}D6 showing {need}+"
            reports.append(_successes(f"{name}_hits", label, CITE["melee_hit"], dice, need))
        blocked = f"the loser's {NUMBERS['retreat_cm']} cm retreat facing the enemy is blocked"
        label = f"{blocked} (it is eliminated)"
        blocked_flag = Report("retreat_blocked", Kind.FLAG, label, CITE["blocked"], default=False)
        return (*reports, blocked_flag)

    def melee_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        """The side that took more hits loses, a tie the defender (lines 120-122)."""
        data = rs.melee(scene, args).data
        attacker, defender = (scene.unit_of(data[k]) for k in ("attacker", "defender"))
        ours, theirs = int(reported["attacker_hits"]), int(reported["defender_hits"])
        if ours > theirs:
            loser, why, cite = defender, f"took {ours} hits to {theirs}", "retreat"
        elif ours == theirs:
            loser, why, cite = defender, f"a tie at {ours} hits: the defender", "tie"
        else:
            loser, why, cite = attacker, f"took {theirs} hits to {ours}", "retreat"
        bases = [b.id for b in loser.bases]
        if kind_of(loser) == "artillery":
            why = f"{why}; artillery that lose are eliminated"
            return removals(bases, why, CITE["artillery_eliminated"])
        if reported["retreat_blocked"]:
            return removals(bases, f"{why}; its retreat is blocked", CITE["blocked"])
        retreat = f"retreats {NUMBERS['retreat_cm']} cm facing the enemy"
        why = f"lost hand-to-hand ({why}): {retreat} and takes two morale tests"
        return (Change(loser.id, "lost_melee", True, why, CITE[cite]),)

    def move_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """Artillery: whether it pivoted (it then cannot fire, line 78); nothing else to say."""
        data = rs.move(scene, args).data
        if kind_of(scene.unit_of(data["unit"])) != "artillery":
            return ()
        label = "the battery pivoted (it cannot fire this turn)"
        return (Report("pivoted", Kind.FLAG, label, CITE["pivoted"], default=False),)

    def move_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        unit = scene.unit_of(expect_args("move", args, ("UNIT",))[0])
        changes = [Change(unit.id, "moved", True, "moved this turn", STEP["movement"])]
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
        failed = likeliest(tuple(Fraction(p) for p in data["bases_lost"]["exact"]))
        label = f"tests failed: the {tests} D6 showing under {data['need']}"
        cite = DATA["morale"][str(data["level"])]["cite"]
        unit = scene.unit_of(data["unit"])
        return (
            Report("failed", Kind.COUNT, label, cite, maximum=tests, default=failed),
            _bases_report(unit, failed, "one for each failed test", CITE["failure"], tests),
        )

    def morale_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        """The bases the failed tests take off; the tests are taken (lines 130-132, 141)."""
        data = rs.morale(scene, args).data
        if not data["tests"]:
            return ()
        unit = scene.unit_of(data["unit"])
        lost = _check_removed(unit, reported["removed"], int(reported["failed"]), "failed tests")
        changes = list(removals(lost, "failed a morale test", CITE["failure"]))
        taken = "its tests are taken"
        if count(unit, "bases_removed"):
            changes.append(Change(unit.id, "bases_removed", 0, taken, CITE["base_removed"]))
        flags = [k for k in ("fired_on", "lost_melee") if flag(unit, k)]
        changes += [Change(unit.id, k, False, taken, CITE[k]) for k in flags]
        return tuple(changes)

    def formation_form(scene: Scene, args: Args) -> tuple[Report, ...]:
        """The formation the unit is in now (lines 15, 19); nothing for a type with none."""
        data = rs.formation(scene, args).data
        options = tuple(data["formations"])
        if not options:
            return ()
        label = f"the formation it is in now: {' or '.join(options)}"
        cite = CITE[f"{kind_of(scene.unit_of(data['unit']))}_formations"]
        default = data["may_change_to"][0]
        return (Report("formation", Kind.CHOICE, label, cite, choices=options, default=default),)

    def formation_apply(scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
        data = rs.formation(scene, args).data
        before, after = data["formation"], reported.get("formation", data["formation"])
        why = f"changed formation from {before} to {after}"
        change = Change(str(data["unit"]), "formation", after, why, STEP["change-formation"])
        return () if after == before else (change,)

    return {
        "shoot": OutcomeRule(shoot_form, shoot_apply),
        "command": OutcomeRule(command_form, command_apply),
        "charge": OutcomeRule(charge_form, charge_apply),
        "melee": OutcomeRule(melee_form, melee_apply),
        "move": OutcomeRule(move_form, move_apply),
        "morale": OutcomeRule(morale_form, morale_apply),
        "formation": OutcomeRule(formation_form, formation_apply),
    }


def _successes(
    name: str, label: str, cite: Cite, dice: int, need: int, most: int | None = None
) -> Report:
    """How many of `dice` D6 showed `need` or more (at most `most`); first shown: the likeliest."""
    likely, most = likeliest(dice_math.successes(dice, 6, need)), dice if most is None else most
    return Report(name, Kind.COUNT, label, cite, maximum=most, default=likely)


def _bases_report(
    unit: Unit, likely: int, why: str, cite: Cite = CITE["base_removed"], most: int | None = None
) -> Report:
    """Which bases of `unit` the players take off; first shown: its last `likely` bases."""
    ids, label = tuple(b.id for b in unit.bases), f"bases of {unit.id} taken off: {why}"
    most = len(ids) if most is None else min(most, len(ids))
    shown = ids[len(ids) - min(likely, len(ids)) :] if likely > 0 else ()
    return Report(
        "removed", Kind.BASES, label, cite, maximum=most, unit=unit.id, bases=ids, default=shown
    )


def _check_removed(unit: Unit, removed: Sequence[str], count: int, what: str) -> list[str]:
    """The ids of the bases named, when they are as many as `count` calls for (all the unit's
    bases at most); a `QuestionError` otherwise."""
    wanted = min(count, len(unit.bases))
    if len(removed) != wanted:
        raise QuestionError(
            f"{ID}: {count} {what} take off {wanted} base(s) of {unit.id}; "
            f"{len(removed)} named ({', '.join(removed) or 'none'})"
        )
    return [b.id for b in unit.bases if b.id in set(removed)]
