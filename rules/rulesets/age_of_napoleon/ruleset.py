"""age-of-napoleon: "Warfare in the Age of Napoleon", page 3, on a square grid. The mechanics:
the page's tables are in sheet.toml (read by sheet.py), the grid in grid.py, and how each
garbled or ambiguous line is read in README.md. Never imports cv2, flask or `vision`."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar

import numpy as np

from ... import dice as dice_math
from ...engine import (
    Action,
    Candidate,
    Cite,
    OutcomeRule,
    Resolution,
    Roll,
    Ruleset,
    Threshold,
    check_attr,
    expect_args,
    length_json,
    threshold_json,
)
from ...errors import QuestionError, accepted
from ...geometry import grid_steps, within
from ...measure import table_of
from ...scene import Scene, Unit
from ...state import Change, Field, Kind, Phase, Report, Scope
from .grid import (
    box_centre_json,
    box_verdict,
    boxes_on_table,
    drift_landings,
    facing_name,
    parse_facing,
    reachable,
    side_adjacent,
)
from .sheet import (
    CITE,
    DATA,
    GRADES,
    GUN_BROKEN,
    GUN_COOLING,
    GUN_HOT,
    GUN_OK,
    MODIFIER_KEYS,
    PHASE_STEPS,
    ROCKET_WEAPON,
    SHEET,
    UNIT_FIELDS,
    Band,
    DiceCount,
    N,
    count,
    count_dice,
    die_of,
    fail,
    flag,
    grid_box_of,
    gun_state,
    leader_base,
    may_fire,
    range_bands,
    sides_of,
    unit_type,
)

REST, KEEP_FIRING = "rest", "keep firing"
"""What the players choose for a gun that overheats for the first time (lines 15-17)."""
NOTHING = "nothing"
"""Where a rocket lands that drifts onto an empty box or off the table."""
QRC_COVER = "the cover modifier is on the QRC: give it in fire_modifiers"


class AgeOfNapoleon(Ruleset):
    id = "age-of-napoleon"
    title = "Warfare in the Age of Napoleon (page 3)"
    sheet = SHEET
    unit = "cm"
    grid = True
    phases: ClassVar[tuple[str, ...]] = tuple(p.name for p in PHASE_STEPS)
    phase_steps: ClassVar[tuple[Phase, ...]] = PHASE_STEPS
    sides_rule: ClassVar[str] = (
        "page 3 gives no sequence of play and no initiative: every side acts in every phase "
        "('all'); the page's sections give the order (1. Firing, 2. Movement, 3. Melee, "
        "5. Morale) and overheating is checked at the end of the turn (line 13)"
    )
    unit_fields: ClassVar[tuple[Field, ...]] = UNIT_FIELDS
    scene_keys: ClassVar[frozenset[str]] = frozenset({"ranges"})

    def known_unit_keys(self) -> frozenset[str]:
        """The declared fields and the QRC modifier lists, so that `fire_modifier` is refused
        as a typo of `fire_modifiers`."""
        return super().known_unit_keys() | frozenset(MODIFIER_KEYS)

    def actions(self) -> dict[str, Action]:
        return {
            **super().actions(),
            "shoot": self.shoot,
            "rocket": self.rocket,
            "overheat": self.overheat,
            "move": self.move,
            "melee": self.melee,
            "morale": self.morale,
            "suggest": self.suggest,
        }

    # ----------------------------------------------------------------------------------------
    # Firing (lines 3-23)

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: range band in boxes, sight, dice, hits and leader check."""
        a, b = expect_args("shoot", args, ("SHOOTER", "TARGET"))
        shooter, target = _enemies(scene, a, b, "shoot")
        if shooter.get("weapon") == ROCKET_WEAPON:
            raise fail(
                f"unit {shooter.id!r} fires rockets, which cause no hits ({CITE.rocket_no_hits}); "
                f"ask 'rocket {a} {b}'"
            )
        die = die_of(shooter)
        sight_ok, data, lines = self._shot(scene, shooter, target, "shoot", a, b)
        dice = count_dice(shooter, target, melee=False)
        fires, why_not = may_fire(shooter)
        allowed = data["band"] != "out-of-range" and sight_ok and dice.dice > 0 and fires
        reasons = data["reasons"]
        floor = " (never less than one die)" if dice.floor_applied else ""
        lines.append(f"{dice.dice}{die} for {dice.bases} bases{_leader_and_modifiers(dice)}{floor}")
        reasons.append(_reason("one die a base, including the leader's", CITE.dice_per_base))
        die_cite = DATA["dice"][die]["cite"]
        reasons.append(_reason(f"{die} as the Unit Stats list gives (unit 'die')", die_cite))
        if dice.modifiers:
            reasons.append(
                _reason("modifiers added, fractions rounded up", CITE.modifiers_round_up)
            )
        if dice.floor_applied:
            reasons.append(
                _reason("an unbroken unit rolls at least 1 die", CITE.never_less_than_one)
            )
        if dice.dice == 0:
            lines.append(f"{shooter.id} is broken and ends with no dice: it does not fire")
        if not fires:
            lines.append(f"{shooter.id} does not fire: {why_not}")
            reasons.append(_reason(why_not, None))
        rolls: list[Roll] = []
        if allowed:
            roll = _hits_roll("hits (dice total)", dice, die, CITE.score_is_hits)
            check = _leader_check(target, dice, die, N.leader_check_hits, CITE.leader_check_fire)
            data["hits"] = _hits_json(dice.dice, roll.sides)
            data["leader_check"] = check
            rolls.append(roll)
            lines.append(
                f"hits = the dice total ({CITE.score_is_hits}): {dice.dice} to "
                f"{dice.dice * roll.sides}, {data['hits']['mean']:.2f} on average"
            )
            if check["target_has_leader"]:
                rolls.append(_leader_roll())
                lines.append(
                    f"leader check on {target.id} (at least 5 hits and a {roll.sides} rolled): "
                    f"{check['p_exact']} = {check['p']:.3f}; then 2d6 on the Leader Hits Table "
                    "(QRC)"
                )
            if die == "d3":
                halved = _hits_json(dice.dice, 6, halved=True)
                data["d6_substitute"] = {**halved, "source": str(CITE.d6_halved)}
                lines.append(
                    f"no d3s? roll {dice.dice}d6 and halve the total, rounding up "
                    f"({CITE.d6_halved})"
                )
        data.update(
            allowed=allowed,
            may_fire=fires,
            weapon=shooter.get("weapon"),
            die=die,
            dice=_dice_json(dice, die),
            rolls=[r.as_json() for r in rolls],
        )
        lines.append("allowed" if allowed else "not allowed")
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    def _shot(
        self, scene: Scene, shooter: Unit, target: Unit, action: str, a: str, b: str
    ) -> tuple[bool, dict[str, Any], list[str]]:
        """The range band in boxes, sight and cover of one shot: (in sight, data, lines)."""
        table = table_of(scene)
        bands = range_bands(scene, shooter)
        places = table.grid_places(grid_box_of(scene))
        pa, pb = places[shooter.id], places[target.id]
        boxes = grid_steps(pa.box, pb.box)
        band = _band_of(bands, boxes)
        steady = box_verdict(pa, pb, lambda x, y: _band_of(bands, grid_steps(x, y)))
        near = table.unit_distance(shooter, target)
        sight = table.sight(self.sight_policy, near.a, near.b)
        cover = table.cover(self.cover_policy, near.a, near.b)
        label = "out-of-range" if band is None else band.label
        limit = bands[-1].limit if band is None else band.limit
        dx, dy = abs(pa.box[0] - pb.box[0]), abs(pa.box[1] - pb.box[1])
        data: dict[str, Any] = {
            "action": action,
            "ruleset": self.id,
            "shooter": a,
            "target": b,
            "between": {"a": near.a.id, "b": near.b.id},
            "distance": length_json(scene, near.distance),
            "boxes": boxes,
            "shooter_box": list(pa.box),
            "target_box": list(pb.box),
            "band": label,
            "bands": [{"label": x.label, "limit": x.limit} for x in bands],
            "range": {
                "boxes": boxes,
                "limit": limit,
                "margin_boxes": limit - boxes,
                "nearest_box_side": length_json(scene, min(pa.edge_margin, pb.edge_margin)),
                "uncertainty": length_json(scene, max(pa.uncertainty, pb.uncertainty)),
                "verdict": "too close to call" if not steady else "within" if band else "beyond",
            },
            "in_sight": sight.any,
            "sight": {
                "rays": sight.rays,
                "clear": sight.clear_rays,
                "blocked_by": list(sight.blocked_by),
            },
            "cover": {
                "cover": cover.cover.value,
                "reasons": list(cover.reasons),
                "note": QRC_COVER,
            },
            "reasons": [
                _reason(f"{_boxes(boxes)}, a diagonal step counting 1.5", CITE.diagonal),
                _reason(f"range bands of {shooter.get('weapon')} from the scene's ranges", None),
            ],
        }
        where = f"{label} (out to {_boxes(limit)})" if band else f"out-of-range (beyond {limit:g})"
        lines = [
            f"{a} ({shooter.get('weapon')}) to {b}: {_boxes(boxes)} ({min(dx, dy)} diagonal and "
            f"{abs(dx - dy)} straight steps, a diagonal counting 1.5, {CITE.diagonal}): {where}",
        ]
        if min(dx, dy):
            data["reasons"].append(_reason("2 boxes on the diagonal are 3", CITE.diagonal_example))
        if not steady:
            lines.append(
                "range band too close to call: a unit's centre is within the measurement's "
                "uncertainty of a box side"
            )
        if sight.any:
            lines.append(f"{b} is in sight of {a}")
        else:
            lines.append(f"{b} is not in sight of {a}: blocked by {', '.join(sight.blocked_by)}")
        if cover.cover.value != "none":
            lines.append(
                f"{b} has {cover.cover.value} cover ({'; '.join(cover.reasons)}): its modifier "
                "is on the QRC (give it in fire_modifiers)"
            )
        return sight.any, data, lines

    def rocket(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`rocket FIRER TARGET`: on target on 5-6, else drift; the morale check it forces."""
        a, b = expect_args("rocket", args, ("FIRER", "TARGET"))
        firer, target = _enemies(scene, a, b, "rocket")
        if firer.get("weapon") != ROCKET_WEAPON:
            raise fail(
                f"unit {firer.id!r} has weapon {firer.get('weapon')!r}; rockets are fired by a "
                f"unit with weapon {ROCKET_WEAPON!r} (ask 'shoot' for other weapons)"
            )
        sight_ok, data, lines = self._shot(scene, firer, target, "rocket", a, b)
        allowed = data["band"] != "out-of-range" and sight_ok
        lands = N.rocket_lands_on
        on_target = Roll.success_roll(
            "rocket lands on target", 1, 6, lands, cite=CITE.rocket_on_target
        )
        p_on = on_target.p_success or Fraction(0)
        p_drift = 1 - p_on
        direction = Roll(
            "drift direction",
            1,
            N.drift_directions,
            None,
            cite=CITE.rocket_drift,
            note="one of the 8 grid directions, each 1/8",
        )
        distance = Roll(
            "drift distance in boxes",
            1,
            N.drift_boxes,
            None,
            dice_math.total(1, N.drift_boxes),
            cite=CITE.rocket_drift,
            note="distribution[k] = P(drifts k boxes)",
        )
        # Where the 48 drifts (1d8 directions x 1d6 boxes) land, and the units standing there.
        table, size = table_of(scene), grid_box_of(scene)
        landings = drift_landings(table.grid_places(size)[target.id].box, boxes_on_table(scene))
        occupants = table.grid_occupants(size)
        struck = Counter(
            u.id for box in landings if box is not None for u in occupants.get(box, ())
        )
        share = p_drift / len(landings)
        drifts = [(u, share * struck[u.id]) for u in scene.units if u.id in struck]
        morale = [_rocket_morale(unit, p) for unit, p in [(target, p_on), *drifts]]
        off = Fraction(landings.count(None), len(landings)) * p_drift
        data.update(
            allowed=allowed,
            weapon=firer.get("weapon"),
            rolls=[r.as_json() for r in (on_target, direction, distance)] if allowed else [],
            on_target=_fraction_json(p_on),
            drift={**_fraction_json(p_drift), "off_table": _fraction_json(off)},
            morale_checks=morale,
            hits=0,
        )
        data["reasons"].append(_reason("rockets cause no hits", CITE.rocket_no_hits))
        lines += [
            f"1d6: lands on {b} on a 5 or 6 ({p_on}); on a 1-4 it drifts ({p_drift}): 1d8 for "
            f"direction, 1d6 boxes ({CITE.rocket_drift})",
            f"no hits; a unit it lands on takes a morale check ({CITE.rocket_no_hits})",
        ]
        for m in morale:
            mod = "no rocket modifier on page 3" if m["modifier"] is None else f"{m['modifier']:+d}"
            lines.append(f"{m['unit']} ({m['type']}): morale check, {mod}, chance {m['exact']}")
        lines.append("allowed" if allowed else "not allowed")
        return Resolution("rocket", MappingProxyType(data), tuple(lines))

    def overheat(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`overheat GUN`: the end-of-turn overheating check of a machine gun (lines 13-17)."""
        (a,) = expect_args("overheat", args, ("GUN",))
        gun = scene.unit_of(a)
        kind = unit_type(gun)
        if kind != "machine-gun":
            raise fail(
                f"unit {gun.id!r} is {kind}; only a machine gun (type 'machine-gun') overheats"
            )
        turns, fired, state = count(gun, "consecutive_fire"), flag(gun, "fired"), gun_state(gun)
        check = state in (GUN_OK, GUN_HOT) and fired and turns >= N.overheat_from_turns
        again = state == GUN_HOT
        p = Fraction(min(max(turns, 0), 6), 6) if check else Fraction(0)  # 1d6 <= turns
        data: dict[str, Any] = {
            "action": "overheat",
            "ruleset": self.id,
            "gun": a,
            "consecutive_fire": turns,
            "fired_this_turn": fired,
            "gun_state": state,
            "check": check,
            "overheated_before": again,
            "p_overheat": _fraction_json(p),
            "rolls": [],
        }
        lines = [
            f"{gun.id} has fired {turns} consecutive turns"
            + ("" if fired else " and has not fired this turn")
            + ("" if state == GUN_OK else f"; it is {state}")
        ]
        effect, cite = "none", None
        if state == GUN_BROKEN:
            lines.append(f"it is permanently broken ({CITE.overheat_again}): no check")
            effect, cite = "permanently broken", CITE.overheat_again
        elif state == GUN_COOLING:
            lines.append(f"it rested this turn and now cools down and is ok ({CITE.cools_down})")
            effect, cite = "cools down", CITE.cools_down
        elif not fired:
            lines.append(
                f"no check: it did not fire this turn ({CITE.overheat_start}); its run of turns "
                "firing ends" + (", and a turn without firing cools it down" if again else "")
            )
            effect, cite = "run ends" + (", cools down" if again else ""), CITE.overheat_start
        elif not check:
            lines.append(
                f"no check before {N.overheat_from_turns} consecutive turns ({CITE.overheat_start})"
            )
        else:
            stays_cool = Roll.success_roll(
                "overheating (the gun stays cool)",
                1,
                6,
                turns + 1,
                cite=CITE.overheat_roll,
                note=f"it overheats on {turns} or less",
            )
            data["rolls"] = [stays_cool.as_json()]
            said = (
                f"permanently broken ({CITE.overheat_again})"
                if again
                else "either it rests 1 turn and cools down, or it keeps firing and checking "
                f"and a second failure breaks it for good ({CITE.overheat_rest})"
            )
            effect = "permanently broken" if again else "rest 1 turn or keep firing"
            cite = CITE.overheat_again if again else CITE.overheat_rest
            lines += [
                f"1d6: overheats on {f'a roll of {turns} or less' if turns < 6 else 'any roll'} "
                f"({CITE.overheat_roll}): {p} = {float(p):.3f}",
                f"if it overheats: {said}",
            ]
        data["effect"] = effect
        if cite is not None:
            data["effect_source"] = str(cite)
        return Resolution("overheat", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # Movement (lines 24-31)

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [FACING]`: the boxes it may reach, its facing and whether it is legal."""
        if len(args) not in (1, 2):
            raise QuestionError(
                f"move takes 1 or 2 arguments (move UNIT [FACING]), got {len(args)}: "
                f"{' '.join(args) or 'none'}"
            )
        table, size = table_of(scene), grid_box_of(scene)
        unit = table.unit_of(args[0])
        kind = unit_type(unit)
        legal, rule = DATA["facings"][kind]["legal"], DATA["facings"][kind]["cite"]
        asked = None if len(args) == 1 else parse_facing(args[1])
        if asked is not None and asked not in legal:
            raise fail(
                f"unit {unit.id!r} is {kind} and may not face {asked!r} (a corner); "
                f"accepted facings are {accepted(legal)} ({rule})"
            )
        place = table.grid_places(size)[unit.id]
        now, off = facing_name(unit.bases[0].facing)
        facing = {
            "degrees": unit.bases[0].facing,
            "nearest": now,
            "off_by_degrees": round(off, 1),
            "legal": now in legal,
            "legal_facings": list(legal),
            "source": str(rule),
            "requested": asked,
        }
        lines = [
            f"{unit.id} ({kind}) stands in box {place.box} facing {now} "
            f"({unit.bases[0].facing:.0f} degrees)"
            + ("" if now in legal else f": illegal, {kind} must face a box side ({rule})")
        ]
        moved = flag(unit, "moved")
        if moved:
            lines.append(f"{unit.id} has already moved this turn")
        data: dict[str, Any] = {
            "action": "move",
            "ruleset": self.id,
            "unit": args[0],
            "type": kind,
            "moved_this_turn": moved,
            "box": list(place.box),
            "facing": facing,
            "nearest_box_side": length_json(scene, place.edge_margin),
            "box_too_close_to_call": len(place.boxes) > 1,
            "may_change_facing": {"value": None, "source": None},
        }
        if kind == "infantry":
            data["may_change_facing"] = {"value": True, "source": str(CITE.infantry_turn)}
            lines.append(f"it may change facing with no additional effect ({CITE.infantry_turn})")
        if kind not in DATA["moves"]:
            data["boxes"] = None
            lines.append(f"page 3 gives no move for {kind}: see the QRC")
            return Resolution("move", MappingProxyType(data), tuple(lines))
        occupants = table.grid_occupants(size)
        data["boxes"] = [
            {
                "box": list(box),
                "centre": box_centre_json(scene, box),
                "boxes_moved": grid_steps(place.box, box),
                "first_step": list(first),
                "how": pattern["how"],
                "source": str(pattern["cite"]),
                "occupied_by": [u.id for u in occupants.get(box, ()) if u.id != unit.id],
            }
            for box, pattern, first in reachable(scene, kind, place.box)
        ]
        rules = ", ".join(f"{p['how']} ({p['cite']})" for p in DATA["moves"][kind])
        lines.append(f"{len(data['boxes'])} boxes in reach: {rules}")
        if kind == "cavalry":
            lines.append(f"never 2 boxes diagonally ({CITE.cavalry_never_two_diagonals})")
        for o in data["boxes"]:
            held = f" (occupied by {', '.join(o['occupied_by'])})" if o["occupied_by"] else ""
            lines.append(f"  {o['box']}: {o['how']}{held}")
        if place.boxes != {place.box}:
            lines.append("its box is too close to call: its centre is near a box side")
        return Resolution("move", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # Melee (lines 32-37)

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee A B`: contact, each side's dice, hits and leader checks."""
        a, b = expect_args("melee", args, ("A", "B"))
        ua, ub = _enemies(scene, a, b, "melee")
        verdict, contact = _contact(scene, ua, ub)
        in_contact = verdict != "not in contact"
        lines = [f"{a} and {b}: {verdict}"]
        sides: dict[str, Any] = {}
        rolls: list[Roll] = []
        for me, them in ((ua, ub), (ub, ua)):
            die = die_of(me, melee=True)
            dice = count_dice(me, them, melee=True)
            side: dict[str, Any] = {"unit": me.id, "dice": _dice_json(dice, die)}
            if in_contact and dice.dice > 0:
                roll = _hits_roll(f"hits on {them.id} (dice total)", dice, die, CITE.melee_hits)
                rolls.append(roll)
                side["hits"] = _hits_json(dice.dice, roll.sides)
                side["leader_check"] = leader = _leader_check(them, dice, die, 0, CITE.leader_face)
                lines.append(
                    f"{me.id}: {dice.dice}{die} ({dice.bases} bases{_leader_and_modifiers(dice)})"
                    f", the total is the hits {them.id} takes ({CITE.melee_hits}), "
                    f"{side['hits']['mean']:.2f} on average"
                )
                if leader["target_has_leader"]:
                    lines.append(
                        f"  leader check on {them.id} (a {roll.sides} rolled, {CITE.leader_face}"
                        f"): {leader['p_exact']} = {leader['p']:.3f}; then 2d6 on the Leader "
                        "Hits Table (QRC)"
                    )
            elif in_contact:
                lines.append(f"{me.id}: no dice after modifiers")
            sides[me.id] = side
        if any(s.get("leader_check", {}).get("target_has_leader") for s in sides.values()):
            rolls.append(_leader_roll())
        data = {
            "action": "melee",
            "ruleset": self.id,
            "a": a,
            "b": b,
            "in_contact": in_contact,
            "contact": contact,
            "sides": sides,
            "rolls": [r.as_json() for r in rolls],
            "reasons": [
                _reason("in base to base contact: dice per base incl. leader", CITE.melee_dice),
                _reason("the dice total is the hits the enemy takes", CITE.melee_hits),
                *(
                    _reason(f"{u.id} fights with its melee_die", CITE.gunners_d3)
                    for u in (ua, ub)
                    if u.get("melee_die") is not None
                ),
            ],
        }
        return Resolution("melee", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # Morale (lines 39-40)

    def morale(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`morale UNIT`: its grade and the rocket modifiers of the checks rockets forced; the
        procedure, the other modifiers and the results are on the QRC."""
        (a,) = expect_args("morale", args, ("UNIT",))
        unit = scene.unit_of(a)
        grade = check_attr(unit, "quality", GRADES, ruleset=self.id)
        forced, broken = count(unit, "rocket_checks"), flag(unit, "broken")
        modifier: dict[str, Any] = {"value": None, "source": None}
        lines = [
            f"{unit.id} is {grade} (one of {accepted(GRADES)}, {CITE.morale_grades})"
            + (", and broken" if broken else "")
        ]
        if forced:
            kind = unit_type(unit)
            mod = DATA["rocket_morale"].get(kind)
            if mod is not None:
                modifier = {"value": mod["modifier"], "source": str(mod["cite"])}
            said = (
                "no rocket modifier on page 3"
                if mod is None
                else f"{mod['modifier']:+d} ({mod['cite']})"
            )
            lines.append(
                f"{forced} morale check{'s' if forced > 1 else ''} forced by a rocket "
                f"({CITE.rocket_no_hits}): {said} for {kind}, in addition to any other modifiers"
            )
        lines.append(
            "the morale procedure, modifiers and results are on the QRC, not on page 3 "
            f"({CITE.morale_qrc})"
        )
        data = {
            "action": "morale",
            "ruleset": self.id,
            "unit": a,
            "grade": grade,
            "grades": list(GRADES),
            "source": str(CITE.morale_grades),
            "broken": broken,
            "rocket_checks": forced,
            "rocket_modifier": modifier,
            "procedure": "on the QRC (not on page 3)",
            "rolls": [],
        }
        return Resolution("morale", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # Suggest: the engine's, asking these questions of each phase

    def candidates(self, scene: Scene, phase: str) -> Iterable[Candidate]:
        units = scene.units
        if phase == "firing":
            shots = list(self._in_range_pairs(scene))
            # Every sight line the shots trace, in one batch (each shot then finds its own).
            table = table_of(scene)
            near = [table.unit_distance(shooter, target) for shooter, target in shots]
            table.sights(self.sight_policy, [(n.a, n.b) for n in near])
            for shooter, target in shots:
                kind = "rocket" if shooter.get("weapon") == ROCKET_WEAPON else "shoot"
                yield Candidate(kind, (shooter.id, target.id))
        elif phase == "movement":
            yield from (Candidate("move", (u.id,)) for u in units if not flag(u, "moved"))
        elif phase == "melee":
            for i, ua in enumerate(units):
                for ub in units[i + 1 :]:
                    if ua.side != ub.side and _maybe_touching(scene, ua, ub):
                        yield Candidate("melee", (ua.id, ub.id))
        elif phase == "morale":
            yield from (Candidate("morale", (u.id,)) for u in units if count(u, "rocket_checks"))
        else:
            for unit in units:
                if unit_type(unit) == "machine-gun" and gun_state(unit) != GUN_BROKEN:
                    yield Candidate("overheat", (unit.id,))

    def answer_candidate(self, scene: Scene, candidate: Candidate) -> Resolution | None:
        answer: Resolution = getattr(self, candidate.kind)(scene, candidate.args)  # the action
        if candidate.kind == "melee" and not answer.data["in_contact"]:
            return None  # only units in contact fight
        return answer

    def _in_range_pairs(self, scene: Scene) -> Iterable[tuple[Unit, Unit]]:
        """Shooter-target pairs of enemies within (or maybe within) the longest band: units
        with a weapon that have not fired this turn and may fire."""
        steps = table_of(scene).grid_steps(grid_box_of(scene))
        units = scene.units
        for row, shooter in enumerate(units):
            if shooter.get("weapon") is None or flag(shooter, "fired") or not may_fire(shooter)[0]:
                continue
            reach = range_bands(scene, shooter)[-1].limit
            for col in np.flatnonzero(within(steps[row], reach)):
                if units[col].side != shooter.side:
                    yield shooter, units[col]

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players threw do to the units

    def outcomes(self) -> Mapping[str, OutcomeRule]:
        return {
            "shoot": OutcomeRule(self._shoot_form, self._shoot_apply),
            "rocket": OutcomeRule(self._rocket_form, self._rocket_apply),
            "melee": OutcomeRule(self._melee_form, self._melee_apply),
            "morale": OutcomeRule(self._morale_form, self._morale_apply),
            "overheat": OutcomeRule(self._overheat_form, self._overheat_apply),
            "move": OutcomeRule(self._move_form, self._move_apply),
        }

    def _shoot_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The hits (the dice total), a top face when a leader check may be due, the bases
        taken off."""
        res = self.shoot(scene, args)
        _refuse_unless_allowed(res, f"{args[0]} may not shoot at {args[1]}")
        target = scene.unit_of(args[1])
        dice, sides = res.data["dice"]["dice"], sides_of(res.data["die"])
        reports = [_hits_report("hits", target, args[0], dice, sides, CITE.score_is_hits)]
        if leader_base(target) and dice * sides >= N.leader_check_hits:
            reports.append(_top_face_report("top_face", target, args[0], sides))
        return (*reports, _removed_report("removed", target))

    def _shoot_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        shooter, target = scene.unit_of(args[0]), scene.unit_of(args[1])
        sides = sides_of(die_of(shooter))
        checked = bool(reported.get("top_face")) and reported["hits"] >= N.leader_check_hits
        return (
            *_hits_changes(target, shooter, reported["hits"], checked, sides, CITE.score_is_hits),
            *_removed_changes(reported["removed"], shooter),
            *_fired_changes(shooter),
        )

    def _rocket_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Where the rocket landed: the target, a unit it may drift onto, or nothing."""
        res = self.rocket(scene, args)
        _refuse_unless_allowed(res, f"{args[0]} may not fire a rocket at {args[1]}")
        struck = [m["unit"] for m in res.data["morale_checks"]]
        label = (
            f"where the rocket landed: on {struck[0]} on a 5 or 6; on a 1-4 it drifts (1d8 "
            f"for direction, 1d6 boxes): the unit in that box, or {NOTHING}"
        )
        choices = (*struck, NOTHING)
        cite = CITE.rocket_on_target
        return (Report("landed_on", Kind.CHOICE, label, cite, choices, default=struck[0]),)

    def _rocket_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        """A rocket causes no hits: the unit it lands on owes a morale check (line 22)."""
        firer = scene.unit_of(args[0])
        fired = _fired_changes(firer)
        if reported["landed_on"] == NOTHING:
            return fired
        struck = scene.unit_of(reported["landed_on"])
        kind = struck.get("type")
        mod = DATA["rocket_morale"].get(kind) if isinstance(kind, str) else None
        said = "" if mod is None else f" at {mod['modifier']:+d} for {kind}"
        why = f"a rocket of {firer.id} landed on it: no hits, a morale check{said}"
        checks = count(struck, "rocket_checks") + 1
        cite = CITE.rocket_no_hits if mod is None else mod["cite"]
        return (Change(struck.id, "rocket_checks", checks, why, cite), *fired)

    def _melee_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The hits each side takes, the top faces for leader checks, the bases taken off."""
        res = self.melee(scene, args)
        if not res.data["in_contact"]:
            raise fail(
                f"{args[0]} and {args[1]} are not in base to base contact ({CITE.melee_dice}): "
                "no melee"
            )
        ua, ub = scene.unit_of(args[0]), scene.unit_of(args[1])
        reports: list[Report] = []
        for key, victim, attacker, other in (("a", ua, ub, "b"), ("b", ub, ua, "a")):
            side = res.data["sides"][attacker.id]
            dice, sides = side["dice"]["dice"], sides_of(side["dice"]["die"])
            name = f"hits_on_{key}"
            reports.append(_hits_report(name, victim, attacker.id, dice, sides, CITE.melee_hits))
            if leader_base(victim) and dice > 0:
                reports.append(_top_face_report(f"top_face_by_{other}", victim, attacker.id, sides))
        return (*reports, _removed_report("removed_a", ua), _removed_report("removed_b", ub))

    def _melee_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        ua, ub = scene.unit_of(args[0]), scene.unit_of(args[1])
        changes: list[Change] = []
        for key, victim, attacker, other in (("a", ua, ub, "b"), ("b", ub, ua, "a")):
            sides = sides_of(die_of(attacker, melee=True))
            checked = bool(reported.get(f"top_face_by_{other}"))
            hits = reported[f"hits_on_{key}"]
            changes += _hits_changes(victim, attacker, hits, checked, sides, CITE.melee_hits)
        changes += _removed_changes(reported["removed_a"], ub)
        return (*changes, *_removed_changes(reported["removed_b"], ua))

    def _morale_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """Whether the QRC's result leaves the unit broken (the one result the page knows)."""
        self.morale(scene, args)
        unit = scene.unit_of(args[0])
        label = f"is {unit.id} broken after the check? (the QRC's morale results)"
        return (Report("broken", Kind.FLAG, label, CITE.morale_qrc, default=flag(unit, "broken")),)

    def _morale_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit = scene.unit_of(args[0])
        changes = []
        if reported["broken"] != flag(unit, "broken"):
            said = "broken" if reported["broken"] else "no longer broken"
            why = f"{said} (QRC morale result)"
            changes.append(Change(unit.id, "broken", reported["broken"], why, CITE.morale_qrc))
        forced = count(unit, "rocket_checks")
        if forced:
            why = "took the morale check a rocket forced"
            changes.append(Change(unit.id, "rocket_checks", forced - 1, why, CITE.rocket_no_hits))
        return tuple(changes)

    def _overheat_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """The 1d6 score when a check is due, and for a first overheating: rest or keep firing."""
        res = self.overheat(scene, args)
        if not res.data["check"]:
            return ()
        turns = res.data["consecutive_fire"]
        label = f"the 1d6 score (it overheats on {turns} or less)"
        reports = [Report("score", Kind.COUNT, label, CITE.overheat_roll, maximum=6)]
        if not res.data["overheated_before"]:
            label = (
                "if it overheats: rest (it may not fire for 1 turn, then cools down) or keep "
                "firing (and checking: a second failure breaks it for good)"
            )
            choices = (REST, KEEP_FIRING)
            reports.append(
                Report(
                    "if_overheated", Kind.CHOICE, label, CITE.overheat_rest, choices, default=REST
                )
            )
        return tuple(reports)

    def _overheat_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        """Lines 13-17: a gun rests and cools down, keeps firing, or breaks for good; a turn
        without firing ends its run of turns firing and cools it down."""
        gun = scene.unit_of(args[0])
        state, fired, turns = gun_state(gun), flag(gun, "fired"), count(gun, "consecutive_fire")
        why = "its run of turns firing ends"
        run_ends = (Change(gun.id, "consecutive_fire", 0, why, CITE.gun_fired),) if turns else ()
        if state == GUN_BROKEN:
            return ()
        if state == GUN_COOLING:
            why = "rested 1 turn: cools down, ok"
            return (Change(gun.id, "gun_state", GUN_OK, why, CITE.cools_down), *run_ends)
        if not fired:
            why = "a turn without firing: cools down"
            cool = Change(gun.id, "gun_state", GUN_OK, why, CITE.cools_down)
            return (*run_ends, *((cool,) if state == GUN_HOT else ()))
        if turns < N.overheat_from_turns:
            return ()
        score = reported["score"]
        if score < 1:
            raise fail(f"overheat {args[0]}: a d6 shows 1 to 6, got {score}")
        if score > turns:
            return ()
        why = f"overheated ({score} is {turns} or less)"
        if state == GUN_HOT:
            why += " again: permanently broken"
            return (Change(gun.id, "gun_state", GUN_BROKEN, why, CITE.overheat_again),)
        if reported["if_overheated"] == REST:
            why += ": rests, may not fire for 1 turn"
            return (Change(gun.id, "gun_state", GUN_COOLING, why, CITE.overheat_rest), *run_ends)
        why += ": keeps firing; a second failure breaks it for good"
        return (Change(gun.id, "gun_state", GUN_HOT, why, CITE.overheat_keep_firing),)

    def _move_form(self, scene: Scene, args: Sequence[str]) -> tuple[Report, ...]:
        """A move rolls no dice: nothing to report (the camera sees where the unit went)."""
        if len(args) not in (1, 2):
            self.move(scene, args)  # raises, naming the arguments
        scene.unit_of(args[0])
        return ()

    def _move_apply(
        self, scene: Scene, args: Sequence[str], reported: Mapping[str, Any]
    ) -> tuple[Change, ...]:
        unit = scene.unit_of(args[0])
        if flag(unit, "moved"):
            return ()
        return (Change(unit.id, "moved", True, "moved this turn", CITE.movement_section),)


# --------------------------------------------------------------------------------------------
# Questions the actions share


def _enemies(scene: Scene, a: str, b: str, action: str) -> tuple[Unit, Unit]:
    """The two units a two-unit question names, on different sides."""
    grid_box_of(scene)
    table = table_of(scene)
    ua, ub = table.unit_of(a), table.unit_of(b)
    if ua.id == ub.id:
        raise fail(f"{action}: {ua.id!r} and {ub.id!r} are the same unit")
    if ua.side == ub.side:
        raise fail(
            f"{action}: units {ua.id!r} and {ub.id!r} are both on side {ua.side!r}; pick an "
            "enemy unit"
        )
    return ua, ub


def _band_of(bands: Sequence[Band], boxes: float) -> Band | None:
    """The nearest band reaching `boxes`, or None when beyond the longest."""
    return next((b for b in bands if within(boxes, b.limit)), None)


def _contact(scene: Scene, ua: Unit, ub: Unit) -> tuple[str, dict[str, Any]]:
    """Whether two units are in base-to-base contact: adjacent boxes or touching bases."""
    table = table_of(scene)
    places = table.grid_places(grid_box_of(scene))
    pa, pb = places[ua.id], places[ub.id]
    adjacent = side_adjacent(pa.box, pb.box)
    steady = box_verdict(pa, pb, side_adjacent)
    near = table.unit_distance(ua, ub)
    touch = Threshold(near.distance, 0.0, table.uncertainty(near.a, near.b))
    if touch.within:
        verdict = "touching"
    elif adjacent and steady:
        verdict = "adjacent boxes"
    elif adjacent or not steady or touch.too_close_to_call:
        verdict = "too close to call"
    else:
        verdict = "not in contact"
    return verdict, {
        "verdict": verdict,
        "boxes": [list(pa.box), list(pb.box)],
        "adjacent_boxes": adjacent,
        "touching": threshold_json(scene, touch),
        "between": {"a": near.a.id, "b": near.b.id},
        "distance": length_json(scene, near.distance),
    }


def _maybe_touching(scene: Scene, ua: Unit, ub: Unit) -> bool:
    """A cheap test before `_contact`: boxes that may be adjacent, or bases that may touch
    (the gap within the units' largest uncertainties)."""
    table = table_of(scene)
    places = table.grid_places(grid_box_of(scene))
    pa, pb = places[ua.id], places[ub.id]
    if any(side_adjacent(x, y) for x in pa.boxes for y in pb.boxes):
        return True
    return table.unit_gap(ua, ub) <= math.hypot(pa.uncertainty, pb.uncertainty)


def _rocket_morale(unit: Unit, p: Fraction) -> dict[str, Any]:
    kind = unit_type(unit)
    mod = DATA["rocket_morale"].get(kind)
    return {
        "unit": unit.id,
        "type": kind,
        "p": float(p),
        "exact": str(p),
        "modifier": None if mod is None else mod["modifier"],
        "source": None if mod is None else str(mod["cite"]),
        "note": "morale procedure, modifiers and results on the QRC (not on page 3)",
    }


# --------------------------------------------------------------------------------------------
# Dice: the hits are the dice total (lines 5, 34)


def _hits_roll(purpose: str, dice: DiceCount, die: str, cite: Cite) -> Roll:
    """The dice whose total is the hits, with the distribution of that total."""
    sides = sides_of(die)
    total = dice_math.total(dice.dice, sides)
    note = "the dice total is the number of hits; distribution[k] = P(k hits)"
    return Roll(purpose, dice.dice, sides, None, total, dice.modifiers, cite, note)


def _leader_roll() -> Roll:
    note = "the Leader Hits Table is on the QRC, not on page 3; distribution[k] = P(2d6 = k)"
    purpose = "leader hit (2d6 on the Leader Hits Table, QRC)"
    return Roll(purpose, 2, 6, None, dice_math.total(2, 6), (), CITE.leader_table, note)


def _hits_json(dice: int, sides: int, *, halved: bool = False) -> dict[str, Any]:
    """P(k hits) as floats and exact fractions, the mean and P(5 hits or more); `halved`: d6s
    rolled for d3s and the total halved, rounding up (line 9)."""
    hits = dice_math.dice_sum(dice, sides, halved)
    return {
        "distribution": list(hits.floats),
        "distribution_exact": list(hits.exact),
        "mean": float(hits.mean),
        "p_at_least_5": float(hits.p_at_least(N.leader_check_hits)),
    }


def _leader_check(
    target: Unit, dice: DiceCount, die: str, min_hits: int, cite: Cite
) -> dict[str, Any]:
    """Whether and how likely the target's leader must be checked for (lines 10, 36-37): the
    hits at least `min_hits` and one or more dice showing the top face."""
    leader, sides = leader_base(target), sides_of(die)
    p = dice_math.total_with_top_face(dice.dice, sides, min_hits) if leader else Fraction(0)
    return {
        "target_has_leader": leader is not None,
        "leader_base": leader,
        "min_hits": min_hits,
        "top_face": sides,
        "p": float(p),
        "p_exact": str(p),
        "source": [str(cite), str(CITE.leader_face)],
    }


def _dice_json(dice: DiceCount, die: str) -> dict[str, Any]:
    return {
        "bases": dice.bases,
        "leader_base": dice.leader,
        "modifiers": [m.as_json() for m in dice.modifiers],
        "before_rounding": float(dice.raw),
        "dice": dice.dice,
        "die": die,
        "never_less_than_one_applied": dice.floor_applied,
    }


def _leader_and_modifiers(dice: DiceCount) -> str:
    """`including leader base x-1, +1 charging (QRC...)`, after a count of bases."""
    leader = f" including leader base {dice.leader}" if dice.leader else ""
    return leader + "".join(f", {m.value:+g} {m.reason}" for m in dice.modifiers)


def _boxes(n: float) -> str:
    return f"{n:g} box" if n == 1 else f"{n:g} boxes"


def _reason(text: str, cite: Cite | None) -> dict[str, Any]:
    return {"reason": text, "source": None if cite is None else str(cite)}


def _fraction_json(p: Fraction) -> dict[str, Any]:
    return {"p": float(p), "exact": str(p)}


# --------------------------------------------------------------------------------------------
# Outcomes: the reports the players fill in and the changes they lead to


def _refuse_unless_allowed(res: Resolution, what: str) -> None:
    """No dice to report for a shot the rules do not allow (a range band too close to call
    is the players' to decide, so its shot may be reported)."""
    data = res.data
    if data["allowed"]:
        return
    if not data["in_sight"]:
        why = "out of sight"
    elif not data.get("may_fire", True):
        why = "it may not fire this turn"
    elif "dice" in data and not data["dice"]["dice"]:
        why = "it has no dice"
    elif data["range"]["verdict"] == "too close to call":
        return
    else:
        why = "out of range"
    raise fail(f"{what}: {why}, so there are no dice to report")


def _hits_report(
    name: str, victim: Unit, attacker: str, dice: int, sides: int, cite: Cite
) -> Report:
    """The hits a unit takes, its enemy's dice total; the likeliest total first."""
    dist = dice_math.total(dice, sides)
    likeliest = max(range(len(dist)), key=lambda k: dist[k])
    label = f"hits {victim.id} takes: the total of the {dice}d{sides} of {attacker}"
    return Report(name, Kind.COUNT, label, cite, maximum=dice * sides, default=likeliest)


def _top_face_report(name: str, victim: Unit, attacker: str, sides: int) -> Report:
    label = f"one or more {sides}s rolled by {attacker} (a leader check on {victim.id})"
    return Report(name, Kind.FLAG, label, CITE.leader_face, default=False)


def _removed_report(name: str, unit: Unit) -> Report:
    label = (
        f"bases of {unit.id} taken off for the hits (the QRC's Unit Stats say how many hits "
        "take off a base; the leader's if the Leader Hits Table says so)"
    )
    bases = tuple(b.id for b in unit.bases)
    return Report(
        name,
        Kind.BASES,
        label,
        CITE.dice_per_base,
        unit=unit.id,
        bases=bases,
        maximum=len(bases),
        default=(),
    )


def _hits_changes(
    victim: Unit, attacker: Unit, hits: int, leader_check: bool, sides: int, cite: Cite
) -> tuple[Change, ...]:
    """The hits a unit takes, added to those it took before; a leader check when due."""
    if not hits:
        return ()
    reason = f"{hits} hits from {attacker.id} (the dice total)"
    if leader_check:
        fire = cite == CITE.score_is_hits
        reason += (
            f"; a {sides} rolled"
            + (" with at least 5 hits" if fire else "")
            + f": {attacker.id} rolls 2d6 on the Leader Hits Table (QRC) "
            f"({CITE.leader_check_fire if fire else CITE.leader_face})"
        )
    return (Change(victim.id, "hits", count(victim, "hits") + hits, reason, cite),)


def _removed_changes(bases: Sequence[str], attacker: Unit) -> tuple[Change, ...]:
    why = f"taken off for the hits of {attacker.id}"
    return tuple(Change(b, "removed", True, why, CITE.dice_per_base, Scope.BASE) for b in bases)


def _fired_changes(unit: Unit) -> tuple[Change, ...]:
    """A unit fires once a turn: `fired`, and a machine gun's run of turns firing grows."""
    if flag(unit, "fired"):
        return ()
    fired = Change(unit.id, "fired", True, "fired this turn", CITE.gun_fired)
    if unit.get("type") != "machine-gun":
        return (fired,)
    turns = count(unit, "consecutive_fire") + 1
    why = f"{turns} turns in a row"
    return (fired, Change(unit.id, "consecutive_fire", turns, why, CITE.consecutive_turns))
