"""Sepoys & Soldiers: what the players' dice change. After a question the players roll real
dice and report them in the sheet's words (the form, `Report`s); the answer is the new state
(`Change`s). `RULES` holds each action's form and what it leads to; every function takes the
ruleset first (`SepoysAndSoldiers.outcomes`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Any

from ...answer import Cite, Resolution
from ...engine import expect_args
from ...errors import QuestionError, accepted
from ...measure import table_of
from ...scene import Scene, Unit
from ...state import Change, Kind, Report, Scope
from . import tables
from .ruleset import (
    ARGUMENTS,
    Allowance,
    _arm,
    _flag,
    _hits,
    _order,
    _status,
    move_allowance,
)
from .tables import CITE, ID, SITUATIONS, WORDS

if TYPE_CHECKING:
    from .ruleset import SepoysAndSoldiers as Rules

Args = Sequence[str]
Answer = Resolution
Reported = Mapping[str, Any]

RISK_RESULTS = ("not-hit", "dead", "wounded", "horse-killed", "scratch")
"""A commander's lose-a-base/nerve roll as the players report it (lines 11-15)."""
CHARGE_RESULTS = ("no-charge", "target-routs", "charge-combat")
"""How a charge ended (lines 79-84), as the players report it."""
BOTH_DESTROYED = "both-destroyed"


def _plural(n: int, word: str, many: str = "s") -> str:
    return f"{n} {word}{many * (n != 1)}"


def _refused(question: str, data: Mapping[str, Any], fallback: str) -> QuestionError:
    """The error of an outcome asked of a question the rules refused."""
    why = "; ".join(r["reason"] for r in data.get("reasons", ()) if r.get("reason"))
    return QuestionError(f"{ID} {question}: {why or fallback}; there are no dice to report")


def _two_units(rules: Rules, scene: Scene, action: str, args: Args) -> tuple[Unit, Unit, Answer]:
    """The two units of a `shoot`, `charge` or `melee` and its answer; refused, no dice."""
    a, b = (scene.unit_of(u) for u in expect_args(action, args, ARGUMENTS[action]))
    r = rules.actions()[action](scene, args)
    if not r.data.get("allowed", True):
        raise _refused(f"{action} {a.id} {b.id}", r.data, f"{a.id} may not {action}")
    return a, b, r


def _removed_report(unit: Unit, label: str, cite: Cite, most: int, likely_hits: int = 0) -> Report:
    """Which bases of `unit` the players take off (at most `most`); shown first: the last
    bases of the unit, as many as `likely_hits` more hits would take (line 3)."""
    bases, most = tuple(b.id for b in unit.bases), min(most, len(unit.bases))
    lost = min((_hits(unit) + likely_hits) // tables.HITS_PER_BASE, len(bases))
    name, taken = f"removed_{unit.id}", bases[len(bases) - lost :]
    return Report(
        name, Kind.BASES, label, cite, maximum=most, unit=unit.id, bases=bases, default=taken
    )


def _hits_landed(
    unit: Unit, carried: int, hits: int, named: Sequence[str], why: str, cite: Cite, question: str
) -> list[Change]:
    """`hits` more on a unit carrying `carried`: every third removes a base (line 3), the
    players having named the bases; what is left over stays on the unit as `hits`."""
    total, bases = carried + hits, len(unit.bases)
    lost = min(total // tables.HITS_PER_BASE, bases)
    if len(named) != lost:
        raise QuestionError(
            f"{question}: {why} make {_plural(hits, 'hit')}; with the {carried} {unit.id} "
            f"carried that is {total}, and each base takes 3 hits before it is removed "
            f"({CITE['hits_per_base']}): name {_plural(lost, 'base')} of {unit.id} to take off, "
            f"not {len(named)}"
        )
    tests = "" if lost == bases else "; it tests its nerve for the loss of a base (line 23)"
    why_removed = f"{unit.id} has taken {total} hits, a base for every 3{tests}"
    changes = [
        Change(b, "removed", True, why_removed, CITE["hits_per_base"], Scope.BASE) for b in named
    ]
    left = total - tables.HITS_PER_BASE * lost
    if lost < bases and left != carried:
        lost_too = f", {_plural(lost, 'base')} lost" if lost else ""
        reason = f"{why}: {_plural(hits, 'hit')} on the {carried} it carried{lost_too}"
        changes.append(Change(unit.id, "hits", left, reason, cite))
    return changes


def _routs(unit: Unit, why: str, cite: Cite) -> list[Change]:
    """A unit routs: `status` routed, and disordered while routing (line 44)."""
    changes = [Change(unit.id, "status", "routed", why, cite)]
    if not _flag(unit, "disordered"):
        why = "disordered while routing"
        changes.append(Change(unit.id, "disordered", True, why, CITE["rout_disorders"]))
    return changes


def _acted(unit: Unit, why: str, cite: Cite) -> Change:
    return Change(unit.id, "acted", True, why, cite)


# --------------------------------------------------------------------------------------------
# shoot: the dice that succeeded and the bases taken off; rockets: the bases each burst took


def _rocket_risk(scene: Scene, target: Unit, shot: Resolution) -> list[Unit]:
    """The target, then every other unit with a base a rocket may burst on."""
    ids = dict.fromkeys([target.id, *(h["unit"] for h in shot.data["bases_hit"])])
    return [scene.unit_of(i) for i in ids]


def shoot_form(rules: Rules, scene: Scene, args: Args) -> tuple[Report, ...]:
    shooter, target, shot = _two_units(rules, scene, "shoot", args)
    if _arm(shooter) == "rockets":
        rockets = len(shooter.bases)
        fired = f"whoever's; {_plural(rockets, 'rocket')} fired"
        label = "bases of {} a rocket burst on (each burst takes one base, " + fired + ")"
        return tuple(
            _removed_report(unit, label.format(unit.id), CITE["rocket_loss"], rockets)
            for unit in _rocket_risk(scene, target, shot)
        )
    roll = shot.data["rolls"][0]
    dice, need, per = roll["dice"], roll["need"], shot.data["hits_per_success"]
    dist = roll["distribution"]
    carried = shot.data["target_hits_carried"]
    artillery = _arm(shooter) == "artillery"
    dice_cite = CITE["artillery_each_base_rolls" if artillery else "each_base_rolls"]
    likeliest = max(range(len(dist)), key=lambda k: dist[k])
    label = f"dice of the {dice}d6 that scored {need}+ (each success {_plural(per, 'hit')})"
    removed = (
        f"bases of {target.id} taken off: one for every 3 hits, counting the {carried} it carries"
    )
    return (
        Report("successes", Kind.COUNT, label, dice_cite, maximum=dice, default=likeliest),
        _removed_report(target, removed, CITE["hits_per_base"], len(target.bases), likeliest * per),
    )


def shoot_apply(rules: Rules, scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
    shooter, target, shot = _two_units(rules, scene, "shoot", args)
    question = f"{ID} shoot {shooter.id} {target.id}"
    changes: list[Change] = []
    if _arm(shooter) == "rockets":
        rockets = len(shooter.bases)
        units = _rocket_risk(scene, target, shot)
        named = [(u, base) for u in units for base in reported[f"removed_{u.id}"]]
        if len(named) > rockets:
            raise QuestionError(
                f"{question}: {len(named)} bases named, but {shooter.id} fired "
                f"{_plural(rockets, 'rocket')} and each burst takes one base "
                f"({CITE['rocket_loss']})"
            )
        for unit, base_id in named:
            tests = "" if unit.side == shooter.side else "; its unit tests its nerve (line 23)"
            why = f"a rocket of {shooter.id} burst on it: loss of a base{tests}"
            changes.append(Change(base_id, "removed", True, why, CITE["rocket_loss"], Scope.BASE))
    else:
        bands = tables.ARTILLERY_BANDS if _arm(shooter) == "artillery" else tables.INFANTRY_BANDS
        band = next(b for b in bands if b.label == shot.data["band"])
        successes, carried = reported["successes"], shot.data["target_hits_carried"]
        why = f"{_plural(successes, 'success', 'es')} at {band.label} range"
        hits, named = successes * band.hits, reported[f"removed_{target.id}"]
        changes += _hits_landed(target, carried, hits, named, why, band.hits_cite, question)
    changes.append(_acted(shooter, "fired: its one action this turn", CITE["one_action"]))
    return tuple(changes)


# --------------------------------------------------------------------------------------------
# command: the order given, and whether the die equalled the commander's quality


def _order_change(rules: Rules, scene: Scene, args: Args) -> tuple[Unit, Unit, Resolution]:
    if len(args) != 2:
        raise QuestionError(
            f"{ID}: the dice of a change of orders are reported for one unit: command "
            f"COMMANDER UNIT (got {_plural(len(args), 'argument')})"
        )
    commander, unit = scene.unit_of(args[0]), scene.unit_of(args[1])
    r = rules.command(scene, args)
    if not r.data["allowed"]:
        why = f"{unit.id} is not adjacent to {commander.id} (line 17)"
        raise _refused(f"command {commander.id} {unit.id}", r.data, why)
    return commander, unit, r


def command_form(rules: Rules, scene: Scene, args: Args) -> tuple[Report, ...]:
    commander, unit, r = _order_change(rules, scene, args)
    need, now = r.data["rolls"][0]["need"], r.data["orders"]
    order = f"the order {commander.id} gives {unit.id} (it acts on {now} orders now)"
    other = next(t for t in tables.TYPES if t != now)
    this_turn = (
        f"the 1d6 scored {need}+ ({commander.id}'s quality or more): {unit.id} acts on the "
        "order this turn; lower, next turn"
    )
    likely = r.data["this_turn"]["value"] >= 0.5
    return (
        Report("order", Kind.CHOICE, order, CITE["orders"], choices=tables.TYPES, default=other),
        Report("this_turn", Kind.FLAG, this_turn, CITE["order_this_turn"], default=likely),
    )


def command_apply(rules: Rules, scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
    commander, unit, r = _order_change(rules, scene, args)
    order, now = reported["order"], _order(unit)
    if reported["this_turn"]:
        cite = CITE["order_this_turn"]
        why = f"{commander.id}'s die equalled his quality or more: acts on the order this turn"
        changes = [Change(unit.id, "orders", order, why, cite)]
        if unit.get("orders_this_turn") != tables.AS_ORDERED:
            changes.append(
                Change(unit.id, "orders_this_turn", tables.AS_ORDERED, "acts on it now", cite)
            )
    else:
        cite = CITE["order_next_turn"]
        why = f"{commander.id}'s die was lower than his quality: acts on the order next turn"
        changes = [
            Change(unit.id, "orders", order, why, cite),
            Change(unit.id, "orders_this_turn", now, f"keeps to its {now} orders this turn", cite),
        ]
    given, most = r.data["orders_given"] + 1, r.data["orders_per_turn"]
    why = f"{given} of the {most} order change{'s' * (most > 1)} he may try each turn"
    changes.append(
        Change(
            commander.id, "orders_given", given, why, tables.COMMANDERS[r.data["rating"]]["cite"]
        )
    )
    return tuple(changes)


# --------------------------------------------------------------------------------------------
# nerve: passed or not, and each adjacent commander's risk roll


def _nerve_question(
    rules: Rules, scene: Scene, args: Args
) -> tuple[Unit, dict[str, Any] | None, Resolution]:
    """The unit, its situation (None: a routed unit's attempt to rally) and the answer."""
    res = rules.nerve(scene, args)  # checks the arguments and the situation's name
    unit = scene.unit_of(args[0])
    situation = SITUATIONS[args[1]] if len(args) == 2 else None
    if situation is None and _status(unit) != "routed":
        raise QuestionError(
            f"{ID}: name the situation {unit.id} tests its nerve in (nerve UNIT SITUATION, "
            f"one of {accepted(SITUATIONS)}): only a routed unit tests without one, to "
            f"rally ({CITE['rally']})"
        )
    return unit, situation, res


def nerve_form(rules: Rules, scene: Scene, args: Args) -> tuple[Report, ...]:
    unit, situation, res = _nerve_question(rules, scene, args)
    dice, tests = res.data["dice"], res.data["tests"]
    what, on_fail = "attempting to rally", "it keeps routing"
    if situation is not None:
        what, on_fail = situation["name"].lower(), situation["on_fail"]
    each = f", in each of {tests} tests" if tests > 1 else ""
    label = f"{unit.id} passed: a 4+ on any of its {dice}d6{each} ({what}; failing: {on_fail})"
    likely = Fraction(res.data["p_pass"]["exact"]) >= Fraction(1, 2)
    risk = partial(Report, kind=Kind.CHOICE, cite=CITE["risk_roll"], choices=RISK_RESULTS)
    risks = [
        risk(f"risk_{r['commander']}", label=WORDS["risk_roll"].format(**r), default="not-hit")
        for r in res.data["commander_risk"]
    ]
    return (Report("passed", Kind.FLAG, label, CITE["nerve_need"], default=likely), *risks)


def nerve_apply(rules: Rules, scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
    unit, situation, res = _nerve_question(rules, scene, args)
    passed = reported["passed"]
    changes: list[Change] = []
    if situation is None:
        if passed:
            why = "rallied: it stops routing (disordered still, it must reform)"
            changes.append(Change(unit.id, "status", tables.STEADY, why, CITE["rally"]))
        changes.append(_acted(unit, "attempting to rally is its action", CITE["rally"]))
    elif situation["key"] == "attempt-to-reform":
        if passed:
            why = "reformed; it cannot move"
            changes.append(Change(unit.id, "disordered", False, why, CITE["reform_passed"]))
        stands = "" if passed else ": stand - remain disordered"
        changes.append(_acted(unit, f"attempting to reform is its action{stands}", CITE["reform"]))
    elif not passed:
        changes += _nerve_failed(unit, situation)
    for risk in res.data["commander_risk"]:
        changes += _commander_hit(scene, risk["commander"], reported[f"risk_{risk['commander']}"])
    return tuple(changes)


def _nerve_failed(unit: Unit, situation: dict[str, Any]) -> list[Change]:
    """What failing the nerve test of `situation` does (lines 22-30)."""
    why = f"failed its nerve ({situation['name'].lower()}): {situation['on_fail']}"
    if situation["key"] == "attempting-to-charge":
        return [_acted(unit, why, situation["cite"])]
    if situation["on_fail"].startswith("fall back"):
        if _status(unit) == "routed":
            return []  # already routing, which is worse
        return [Change(unit.id, "status", "falling-back", why, situation["cite"])]
    return _routs(unit, why, situation["cite"])


def _commander_hit(scene: Scene, ident: str, result: str) -> list[Change]:
    """What a commander's risk roll did to him (lines 11-15)."""
    if result == "dead":
        cite = tables.IF_HIT[0]["cite"]
        return [
            Change(b.id, "removed", True, f"{ident} is dead", cite, Scope.BASE)
            for b in scene.unit_of(ident).bases
        ]
    if result in ("wounded", "horse-killed"):
        row = tables.IF_HIT[1] if result == "wounded" else tables.IF_HIT[2]
        return [Change(ident, "hurt", result, row["result"], row["cite"])]
    return []


# --------------------------------------------------------------------------------------------
# charge: which end of the charge sequence came


def charge_form(rules: Rules, scene: Scene, args: Args) -> tuple[Report, ...]:
    charger, target, r = _two_units(rules, scene, "charge", args)
    odds = r.data["outcomes"]
    tests = r.data["steps"][1]["tests"]
    likeliest = max(CHARGE_RESULTS, key=lambda k: odds[k.replace("-", "_")]["value"])
    holds = "it counter-charges" if r.data["counter_charge"] else "it stands"
    label = (
        f"how the charge ended: no-charge ({charger.id} failed its nerve and stands), "
        f"target-routs ({charger.id} passed, {target.id} failed"
        + (" one of its two tests" if tests > 1 else "")
        + f"), charge-combat (both passed: {holds} and the units fight a charge combat)"
    )
    cite = CITE["charge_test"]
    return (Report("result", Kind.CHOICE, label, cite, choices=CHARGE_RESULTS, default=likeliest),)


def charge_apply(rules: Rules, scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
    charger, target, r = _two_units(rules, scene, "charge", args)
    result = reported["result"]
    if result == "no-charge":
        stand = SITUATIONS["attempting-to-charge"]
        return (_acted(charger, f"failed its nerve: {stand['on_fail']}", stand["cite"]),)
    if result == "target-routs":
        situation = SITUATIONS[r.data["steps"][1]["situation"]]
        why = "charged: it continues to the extent of its charge move"
        return (
            *_routs(target, f"failed its nerve: {situation['on_fail']}", situation["cite"]),
            _acted(charger, why, CITE["charge_continues"]),
        )
    if r.data["counter_charge"]:
        cite = CITE["counter_charge"]
        return (
            _acted(charger, "charged home: the units fight a charge combat", cite),
            _acted(target, "counter-charged", cite),
        )
    why = "charged home: the units fight a charge combat"
    return (_acted(charger, why, CITE["infantry_stands"]),)


# --------------------------------------------------------------------------------------------
# melee: the drawn rounds, the winner and the bases taken off (lines 88-91)


def melee_form(rules: Rules, scene: Scene, args: Args) -> tuple[Report, ...]:
    a, b, r = _two_units(rules, scene, "melee", args)
    most = min(tables.HITS_PER_BASE * len(u.bases) - _hits(u) for u in (a, b))
    likelier = a.id if r.data["p_a_wins"]["value"] >= r.data["p_b_wins"]["value"] else b.id
    drawn, winner = WORDS["drawn_rounds"], WORDS["combat_winner"].format(BOTH_DESTROYED)
    sides, cite = (a.id, b.id, BOTH_DESTROYED), CITE["combat_reroll"]
    removed = "bases of {} taken off: one for every 3 hits, counting the {} it carries"
    return (
        Report("drawn_rounds", Kind.COUNT, drawn, CITE["combat_draw"], maximum=most, default=0),
        Report("winner", Kind.CHOICE, winner, cite, choices=sides, default=likelier),
        *(
            _removed_report(
                u,
                removed.format(u.id, _hits(u)),
                CITE["hits_per_base"],
                len(u.bases),
                tables.COMBAT_HITS["win" if u.id == likelier else "lose"],
            )
            for u in (a, b)
        ),
    )


def melee_apply(rules: Rules, scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
    a, b, _ = _two_units(rules, scene, "melee", args)
    question = f"{ID} melee {a.id} {b.id}"
    drawn, winner = reported["drawn_rounds"], reported["winner"]
    rounds = _plural(drawn, "drawn round")
    carried = {u.id: _hits(u) for u in (a, b)}
    taken = {a.id: drawn, b.id: drawn}
    dead = [u.id for u in (a, b) if carried[u.id] + drawn >= tables.HITS_PER_BASE * len(u.bases)]
    if dead:
        ended = BOTH_DESTROYED if len(dead) == 2 else (b.id if dead == [a.id] else a.id)
        if winner != ended:
            raise QuestionError(
                f"{question}: after {rounds} {' and '.join(dead)} had no base left and the combat "
                f"ended there: the winner is {ended}, not {winner}"
            )
    elif winner == BOTH_DESTROYED:
        raise QuestionError(
            f"{question}: after {rounds} both sides still have bases: name the side that alone "
            f"passed its nerve ({a.id} or {b.id})"
        )
    else:
        taken[winner] += tables.COMBAT_HITS["win"]
        taken[b.id if winner == a.id else a.id] += tables.COMBAT_HITS["lose"]
    changes: list[Change] = []
    cite = CITE["combat_draw" if dead else "combat_win"]
    for u in (a, b):
        why = rounds + (
            "" if dead else f" and the {'winning' if u.id == winner else 'losing'} round"
        )
        named = reported[f"removed_{u.id}"]
        changes += _hits_landed(u, carried[u.id], taken[u.id], named, why, cite, question)
    for u in (a, b):
        if carried[u.id] + taken[u.id] >= tables.HITS_PER_BASE * len(u.bases):
            continue  # destroyed
        if not dead and u.id != winner:
            changes += _routs(u, "lost the charge combat: routs one full move", CITE["combat_rout"])
            continue
        if u.id == winner and _arm(u) == "cavalry" and u.side.lower() == "british":
            why = "British cavalry must pursue"
            changes.append(Change(u.id, "status", "pursuing", why, CITE["combat_pursue"]))
        if not _flag(u, "disordered"):
            why = "after resolving a charge combat (all units involved)"
            changes.append(Change(u.id, "disordered", True, why, CITE["combat_disorders"]))
    return tuple(changes)


# --------------------------------------------------------------------------------------------
# move: no dice; disordered by the going, and the friends a falling unit passed through


def _move_question(rules: Rules, scene: Scene, args: Args) -> tuple[Unit, Allowance, Resolution]:
    res = rules.move(scene, args)
    unit = scene.unit_of(args[0])
    allowance = move_allowance(table_of(scene), unit, tuple(args[1:]))
    question = f"{ID} move {' '.join(args)}"
    if not allowance.distance and not allowance.whole_turn:
        raise QuestionError(f"{question}: {unit.id} may not move: {allowance.reasons[0][0]}")
    if _flag(unit, "moved"):
        raise QuestionError(f"{question}: {unit.id} has moved this turn")
    if _flag(unit, "acted") and _status(unit) not in ("routed", "falling-back"):
        raise QuestionError(
            f"{question}: {unit.id} has taken its one action this turn ({CITE['one_action']})"
        )
    return unit, allowance, res


def _through(res: Resolution) -> list[str]:
    """The friends a falling-back or routing unit has no room to manoeuvre past."""
    return [p["friend"] for p in res.data.get("fall_back_past", ()) if not p["may_manoeuvre"]]


def move_form(rules: Rules, scene: Scene, args: Args) -> tuple[Report, ...]:
    unit, _, res = _move_question(rules, scene, args)
    label = (
        f"{unit.id} moved straight back through {{}} (no room to manoeuvre past it: "
        '8" between them and a gap of its frontage beside it)'
    )
    return tuple(
        Report(f"through_{f}", Kind.FLAG, label.format(f), CITE["gap_otherwise"], default=True)
        for f in _through(res)
    )


def move_apply(rules: Rules, scene: Scene, args: Args, reported: Reported) -> tuple[Change, ...]:
    unit, allowance, res = _move_question(rules, scene, args)
    changes = [Change(unit.id, "moved", True, "moved", CITE["guns_moved_no_fire"])]
    if not _flag(unit, "acted"):
        changes.append(_acted(unit, "moving is its one action", CITE["one_action"]))
    disorder: tuple[str, Cite] | None = None
    if allowance.disordered:
        going = f"{allowance.going} going ({', '.join(allowance.pieces)})"
        disorder = (going, allowance.reasons[0][1])
    status = _status(unit)
    for friend in (f for f in _through(res) if reported[f"through_{f}"]):
        why = f"{unit.id} fell back straight through it"
        changes.append(Change(friend, "disordered", True, why, CITE["gap_otherwise"]))
        if disorder is None:
            cite = CITE["passed_through" if status == "routed" else "interpenetration_disorders"]
            disorder = (f"passed through {friend}", cite)
    if disorder is not None and not _flag(unit, "disordered"):
        changes.append(Change(unit.id, "disordered", True, disorder[0], disorder[1]))
    if status == "falling-back":
        why, cite = (
            "has fallen back its full move (end facing enemy)",
            SITUATIONS["loss-of-a-base"]["cite"],
        )
        changes.append(Change(unit.id, "status", tables.STEADY, why, cite))
    return tuple(changes)


Form = Callable[["Rules", Scene, Args], tuple[Report, ...]]
Apply = Callable[["Rules", Scene, Args, Reported], tuple[Change, ...]]
RULES: dict[str, tuple[Form, Apply]] = {
    "shoot": (shoot_form, shoot_apply),
    "command": (command_form, command_apply),
    "nerve": (nerve_form, nerve_apply),
    "charge": (charge_form, charge_apply),
    "melee": (melee_form, melee_apply),
    "move": (move_form, move_apply),
}
