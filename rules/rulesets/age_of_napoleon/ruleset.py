"""age-of-napoleon: "Warfare in the Age of Napoleon", page 3, on a square grid: the mechanics.
The page's tables and the texts of the answers are data (sheet.toml), and README.md says how each
garbled or ambiguous line is read."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from itertools import accumulate, product
from pathlib import Path
from types import SimpleNamespace
from typing import Any, ClassVar, NamedTuple, TypeAlias

import numpy as np

from ... import dice as dice_math
from ...answer import Modifier, Resolution, Roll, length_json, threshold_json
from ...answer import reason_json as reason
from ...engine import Action, Asked, Candidate, Ruleset
from ...errors import QuestionError, accepted
from ...geometry import grid_steps, within
from ...measure import Box, steady_on_grid, table_of
from ...scene import Scene, Unit
from ...sheetdata import load_sheet
from ...state import Change, Kind, Report, bases_report, count_report, removals

RULESET_ID, SHEET = "age-of-napoleon", "003_5b7c133d01707a77.txt"
DATA = load_sheet(
    Path(__file__).with_name("sheet.toml"), SHEET, RULESET_ID, names=["cites", "numbers"]
)
CITE = SimpleNamespace(**DATA["cites"])
"""The lines the mechanics quote, by name (`CITE.diagonal`)."""
N = SimpleNamespace(**DATA["numbers"])
"""The page's numbers, by name (`N.leader_check_hits`)."""

say = DATA.say
"""A text of sheet.toml's `[texts]`, `{names}` filled in (`{cites[diagonal]}` quotes a line)."""
refusal = DATA.refusal
"""A question the page refuses, in the words of sheet.toml's `[refusals]`, `{names}` filled in."""
read = DATA.read
"""A unit's word for one of the page's choices (`type`, `die`, `quality`, `gun_state`)."""

Reports: TypeAlias = tuple[Report, ...]
Changes: TypeAlias = tuple[Change, ...]
Reported: TypeAlias = Mapping[str, Any]
ShotAnswer: TypeAlias = tuple[dict[str, Any], str, Callable[[], list[str]]]
"""A shot's data, its first line (what `suggest` lists) and how to say its lines, that first
included, when read."""
NOTHING = "nothing"
"""Where a rocket lands that drifts onto an empty box or off the table."""
SHOT = ("hits", "top_face")
ON_A, ON_B = ("hits_on_a", "top_face_by_b"), ("hits_on_b", "top_face_by_a")
"""The reports of the hits a unit takes and of its enemy's top faces: a shot's, a melee's."""


class AgeOfNapoleon(Ruleset):
    data = DATA
    title = "Warfare in the Age of Napoleon (page 3)"
    unit = "cm"
    grid = True
    sides_rule: ClassVar[str] = DATA["sequence"]["sides_rule"]
    scene_keys: ClassVar[frozenset[str]] = frozenset({"ranges"})

    def known_unit_keys(self) -> frozenset[str]:
        """The declared fields and the QRC's modifier lists, so `fire_modifier` is a typo."""
        return super().known_unit_keys() | {"fire_modifiers", "melee_modifiers"}

    def actions(self) -> dict[str, Action]:
        mine = (self.shoot, self.rocket, self.overheat, self.move, self.melee, self.morale)
        return {**super().actions(), **{a.__name__: a for a in mine}, "suggest": self.suggest}

    # Firing (lines 3-23)
    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: range band in boxes, sight, dice, hits and leader check."""
        a, b = args
        shooter, target = _enemies(scene, a, b, "shoot")
        if shooter.get("weapon") == "rocket":
            raise refusal("fires_rockets", unit=shooter.id, a=a, b=b)
        die = _die(shooter)
        data, head, shot = self._shot(scene, shooter, target, a, b)
        dice, why_not = _count_dice(shooter, target, die, melee=False), _cannot_fire(shooter)
        allowed = data["band"] != "out-of-range" and data["in_sight"] and dice.dice > 0
        allowed = allowed and not why_not
        data["reasons"] += [
            reason("one die a base, including the leader's", CITE.dice_per_base),
            reason(f"{die} as the Unit Stats list gives (unit 'die')", DATA["dice"][die]["cite"]),
            *_reasons_due(round_up=dice.modifiers, at_least_one=dice.never_less_than_one_applied),
            *([reason(why_not, None)] if why_not else []),
        ]
        rolls: list[Roll] = []
        if allowed:
            roll, hits, check, leader = _hits(dice, target, melee=False)
            data.update(hits=hits, leader_check=check)
            rolls += [roll, _roll("leader")] if leader else [roll]
            if die == "d3":
                halved = _hits_json(dice.dice, 6, halved=True)
                data["d6_substitute"] = {**halved, "source": str(CITE.d6_halved)}
        data.update(allowed=allowed, may_fire=not why_not, weapon=shooter.get("weapon"))
        data.update(die=die, dice=dice.as_json(), rolls=[r.as_json() for r in rolls])

        def lines() -> list[str]:
            floor = " (never less than one die)" if dice.never_less_than_one_applied else ""
            out = [*shot(), f"{dice.dice}{die} for {dice.bases} bases{dice.said()}{floor}"]
            out += [say("no_dice", unit=shooter.id)] if dice.dice == 0 else []
            out += [f"{shooter.id} does not fire: {why_not}"] if why_not else []
            if allowed:
                most = dice.dice * rolls[0].sides
                out.append(say("fire_hits", dice=dice.dice, most=most, hits=data["hits"]))
                out += [leader] if leader else []
                out += [say("d3_substitute", dice=dice.dice)] if die == "d3" else []
            return [*out, "allowed" if allowed else "not allowed"]

        return self.answer("shoot", data, lines, summary=head)

    def _shot(self, scene: Scene, shooter: Unit, target: Unit, a: str, b: str) -> ShotAnswer:
        """The range band in boxes (a diagonal counting 1.5, line 18), the sight and the cover."""
        table, bands = table_of(scene), _range_bands(scene, shooter)
        places = table.grid(_box_size(scene)).places
        pa, pb = places[shooter.id], places[target.id]
        boxes = grid_steps(pa.box, pb.box)
        band = _band_of(bands, boxes)
        steady = steady_on_grid(pa, pb, lambda x, y: _band_of(bands, grid_steps(x, y)))
        near = table.gap(shooter.bases, target.bases)
        sight = table.sight(self.sight_policy, near.a, near.b)
        cover = table.cover(self.cover_policy, near.a, near.b)
        reached = band is not None
        label = "out-of-range" if band is None else band
        limit = max(bands.values()) if band is None else bands[band]
        data: dict[str, Any] = dict(shooter=a, target=b, between={"a": near.a.id, "b": near.b.id})
        data.update(distance=length_json(scene, near.distance), boxes=boxes)
        data.update(shooter_box=list(pa.box), target_box=list(pb.box), band=label)
        data.update(bands=[{"label": x, "limit": limit} for x, limit in bands.items()])
        data["range"] = {"boxes": boxes, "limit": limit, "margin_boxes": limit - boxes}
        data["range"].update(
            nearest_box_side=length_json(scene, min(pa.edge_margin, pb.edge_margin)),
            uncertainty=length_json(scene, max(pa.uncertainty, pb.uncertainty)),
            verdict="too close to call" if not steady else "within" if reached else "beyond",
        )
        data.update(in_sight=sight.any, sight=sight.as_json())
        qrc = "the cover modifier is on the QRC: give it in fire_modifiers"
        data["cover"] = {"cover": cover.cover.value, "reasons": list(cover.reasons), "note": qrc}
        dx, dy = abs(pa.box[0] - pb.box[0]), abs(pa.box[1] - pb.box[1])
        data["reasons"] = [
            reason(f"{_boxes(boxes)}, a diagonal step counting 1.5", CITE.diagonal),
            reason(f"range bands of {shooter.get('weapon')} from the scene's ranges", None),
            *_reasons_due(diagonal_example=min(dx, dy)),
        ]
        said = {"a": a, "b": b, "weapon": shooter.get("weapon"), "boxes": _boxes(boxes)}
        said |= {"diagonal_steps": min(dx, dy), "straight_steps": abs(dx - dy)}
        where = say(
            "in_band" if reached else "beyond", label=label, reach=_boxes(limit), limit=limit
        )
        head = say("shot", where=where, **said)

        def lines() -> list[str]:
            out = [head, *([] if steady else [say("band_too_close")])]
            blocked = f"not in sight of {a}: blocked by {', '.join(sight.blocked_by)}"
            out.append(f"{b} is {f'in sight of {a}' if sight.any else blocked}")
            covered = {"b": b, "cover": cover.cover.value, "why": "; ".join(cover.reasons)}
            return out + ([say("cover", **covered)] if cover.cover.value != "none" else [])

        return data, head, lines

    def rocket(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`rocket FIRER TARGET`: where it may land and the morale checks it forces (20-23)."""
        a, b = args
        firer, target = _enemies(scene, a, b, "rocket")
        if firer.get("weapon") != "rocket":
            raise refusal("not_a_rocket", unit=firer.id, weapon=firer.get("weapon"))
        data, head, shot = self._shot(scene, firer, target, a, b)
        allowed = data["band"] != "out-of-range" and data["in_sight"]
        lands = N.rocket_lands_on
        on_target = Roll.success_roll("rocket lands on target", 1, 6, lands, cite=CITE.on_target)
        p_on = on_target.p_success or Fraction(0)
        p_drift = 1 - p_on
        # The 48 drifts (1d8 directions x 1d6 boxes, line 21) are as likely: where each lands
        # (None: off the table), and the units in the boxes hit.
        table, size, (x, y) = table_of(scene), _box_size(scene), data["target_box"]
        boxes, grid = DATA["rolls"]["drift_distance"]["sides"], table.grid(size)
        ends = ((x + k * dx, y + k * dy) for dx, dy in STEP.values() for k in range(1, boxes + 1))
        landings = [box if on_table(box, grid.extent) else None for box in ends]
        struck = Counter(u.id for box in landings if box for u in grid.occupants.get(box, ()))
        share = p_drift / len(landings)
        chance = {n: share * n for n in set(struck.values())}  # of a unit struck n times
        drifts = [(u, chance[struck[u.id]]) for u in scene.units if u.id in struck]
        morale = [_rocket_morale(unit, p) for unit, p in [(target, p_on), *drifts]]
        off = Fraction(landings.count(None), len(landings)) * p_drift
        rolls = (on_target, _roll("drift_direction", total=False), _roll("drift_distance"))
        data.update(allowed=allowed, weapon=firer.get("weapon"), morale_checks=morale, hits=0)
        data.update(rolls=[r.as_json() for r in rolls] if allowed else [])
        data.update(on_target=_fraction_json(p_on), drift=_fraction_json(p_drift))
        data["drift"]["off_table"] = _fraction_json(off)
        data["reasons"].append(reason("rockets cause no hits", CITE.rocket_no_hits))

        def lines() -> list[str]:
            out = [*shot(), say("rocket_lands", b=b, on=p_on, drift=p_drift), say("rocket_no_hits")]
            for m in morale:
                key = "rocket_morale" if m["modifier"] is None else "rocket_morale_at"
                out.append(say(key, **m))
            return [*out, "allowed" if allowed else "not allowed"]

        return self.answer("rocket", data, lines, summary=head)

    def overheat(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`overheat GUN`: the end-of-turn overheating check of a machine gun (lines 13-17)."""
        (a,) = args
        gun = scene.unit_of(a)
        kind = read(gun, "type")
        if kind != "machine-gun":
            raise refusal("not_a_gun", unit=gun.id, kind=kind)
        case, turns = _overheat_case(gun)
        state, fired, rule = gun.get("gun_state"), gun.get("fired"), DATA["overheat"][case]
        check = case.startswith("check")
        p = Fraction(min(turns, 6), 6) if check else Fraction(0)  # 1d6 <= the turns firing
        data: dict[str, Any] = dict(gun=a, consecutive_fire=turns, check=check, rolls=[])
        data.update(gun_state=state, overheated_before=state == "overheated", fired_this_turn=fired)
        data.update(p_overheat=_fraction_json(p), effect=rule["effect"])
        if "cite" in rule:
            data["effect_source"] = str(rule["cite"])
        if check:
            purpose, note = "overheating (the gun stays cool)", f"it overheats on {turns} or less"
            cool = Roll.success_roll(purpose, 1, 6, turns + 1, cite=CITE.overheat_roll, note=note)
            data["rolls"] = [cool.as_json()]
        idle = "" if fired else " and has not fired this turn"
        now = "" if state == "ok" else f"; it is {state}"
        lines = [f"{gun.id} has fired {turns} consecutive turns{idle}{now}"]
        on = f"a roll of {turns} or less" if turns < 6 else "any roll"
        lines += [say(text, on=on, p=p, pf=float(p)) for text in rule["says"]]
        return self.answer("overheat", data, lines)

    # Movement (lines 24-31)
    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [FACING]`: the boxes it may reach, its facing and whether it is legal."""
        size = _box_size(scene)
        unit, grid = table_of(scene).unit_of(args[0]), table_of(scene).grid(size)
        kind = read(unit, "type")
        legal, rule = DATA["facings"][kind]["legal"], DATA["facings"][kind]["cite"]
        asked = None if len(args) == 1 else parse_facing(args[1])
        if asked is not None and asked not in legal:
            words = {"unit": unit.id, "kind": kind, "asked": asked, "legal": accepted(legal)}
            raise refusal("may_not_face", **words, rule=rule)
        place, degrees = grid.places[unit.id], unit.bases[0].facing
        now, off = facing_name(degrees)
        facing: dict[str, Any] = dict(degrees=degrees, nearest=now, off_by_degrees=round(off, 1))
        facing.update(legal=now in legal, legal_facings=list(legal), source=str(rule))
        facing["requested"] = asked
        illegal = "" if now in legal else f": illegal, {kind} must face a box side ({rule})"
        stands = f"{unit.id} ({kind}) stands in box {place.box}"
        lines = [f"{stands} facing {now} ({degrees:.0f} degrees){illegal}"]
        moved = unit.get("moved")
        lines += [f"{unit.id} has already moved this turn"] if moved else []
        data: dict[str, Any] = dict(unit=args[0], type=kind, moved_this_turn=moved, facing=facing)
        data.update(box=list(place.box), nearest_box_side=length_json(scene, place.edge_margin))
        data.update(box_too_close_to_call=len(place.boxes) > 1)
        data["may_change_facing"] = {"value": None, "source": None}
        if kind == "infantry":
            data["may_change_facing"] = {"value": True, "source": str(CITE.infantry_turn)}
            lines.append(f"it may change facing with no additional effect ({CITE.infantry_turn})")
        if kind not in DATA["moves"]:
            data["boxes"] = None
            lines.append(f"page 3 gives no move for {kind}: see the QRC")
            return self.answer("move", data, lines)
        data["boxes"] = []
        for box, pattern, first in reachable(kind, place.box, grid.extent):
            x, y = (length_json(scene, (k + 0.5) * size)["value"] for k in box)
            centre = {"x": x, "y": y, "unit": scene.unit}
            option: dict[str, Any] = {"box": list(box), "centre": centre}
            option.update(boxes_moved=grid_steps(place.box, box), first_step=list(first))
            option.update(how=pattern["how"], source=str(pattern["cite"]))
            option["occupied_by"] = [u.id for u in grid.occupants.get(box, ()) if u.id != unit.id]
            data["boxes"].append(option)
        rules = ", ".join(f"{m['how']} ({m['cite']})" for m in DATA["moves"][kind])
        lines.append(f"{len(data['boxes'])} boxes in reach: {rules}")
        never = f"never 2 boxes diagonally ({CITE.never_two_diagonals})"
        lines += [never] if kind == "cavalry" else []
        for o in data["boxes"]:
            held = f" (occupied by {', '.join(o['occupied_by'])})" if o["occupied_by"] else ""
            lines.append(f"  {o['box']}: {o['how']}{held}")
        lines += [] if place.boxes == {place.box} else [say("box_too_close")]
        return self.answer("move", data, lines)

    # Melee (lines 32-37)
    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee A B`: contact, each side's dice, hits and leader checks."""
        a, b = args
        ua, ub = _enemies(scene, a, b, "melee")
        verdict, contact = _contact(scene, ua, ub)
        in_contact = verdict != "not in contact"
        lines = [f"{a} and {b}: {verdict}"]
        sides: dict[str, Any] = {}
        rolls: list[Roll] = []
        for me, them in ((ua, ub), (ub, ua)):
            dice = _count_dice(me, them, _die(me, melee=True), melee=True)
            side: dict[str, Any] = {"unit": me.id, "dice": dice.as_json()}
            sides[me.id] = side
            if in_contact and dice.dice > 0:
                roll, hits, check, leader = _hits(dice, them, melee=True)
                rolls.append(roll)
                side.update(hits=hits, leader_check=check)
                said = {"me": me.id, "them": them.id, "said": dice.said()}
                lines.append(say("melee_hits", dice=dice, hits=hits, **said))
                lines += [leader] if leader else []
            elif in_contact:
                lines.append(f"{me.id}: no dice after modifiers")
        if any(s.get("leader_check", {}).get("target_has_leader") for s in sides.values()):
            rolls.append(_roll("leader"))
        gunners = [u for u in (ua, ub) if u.get("melee_die") is not None]
        data: dict[str, Any] = dict(a=a, b=b, in_contact=in_contact, contact=contact, sides=sides)
        data["rolls"] = [r.as_json() for r in rolls]
        data["reasons"] = [
            reason("in base to base contact: dice per base incl. leader", CITE.melee_dice),
            reason("the dice total is the hits the enemy takes", CITE.melee_hits),
            *(reason(f"{u.id} fights with its melee_die", CITE.gunners_d3) for u in gunners),
        ]
        return self.answer("melee", data, lines)

    # Morale (lines 39-40)
    def morale(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`morale UNIT`: its grade and rocket modifiers (the rest is on the QRC)."""
        (a,) = args
        unit = scene.unit_of(a)
        grade, forced = read(unit, "quality"), unit.get("rocket_checks")
        broken, grades = unit.get("broken"), DATA.field["quality"].choices
        now = ", and broken" if broken else ""
        lines = [f"{unit.id} is {grade} (one of {accepted(grades)}, {CITE.morale_grades}){now}"]
        modifier: dict[str, Any] = {"value": None, "source": None}
        if forced:
            kind = read(unit, "type")
            mod = DATA["rocket_morale"].get(kind)
            if mod is not None:
                modifier = {"value": mod["modifier"], "source": str(mod["cite"])}
            text = "rocket_checks" if mod is None else "rocket_checks_at"
            lines.append(say(text, n=forced, s="s" if forced > 1 else "", kind=kind, **modifier))
        lines.append(say("morale_on_qrc"))
        data: dict[str, Any] = dict(unit=a, grade=grade, grades=list(grades), broken=broken)
        data.update(source=str(CITE.morale_grades), rocket_checks=forced, rocket_modifier=modifier)
        data.update(procedure="on the QRC (not on page 3)", rolls=[])
        return self.answer("morale", data, lines)

    # Suggest: the engine's, asking these questions of each phase
    def candidates(self, scene: Scene, phase: str) -> Iterable[Candidate]:
        table, units = table_of(scene), scene.units
        if phase == "firing":
            # Enemies within (or maybe within) the longest band of a shooter that has a weapon,
            # has not fired this turn and may fire.
            steps, shots = table.grid(_box_size(scene)).steps, []
            for row, me in enumerate(units):
                if me.get("weapon") is None or me.get("fired") or _cannot_fire(me):
                    continue
                reach = within(steps[row], max(_range_bands(scene, me).values()))
                shots += [(me, units[c]) for c in np.flatnonzero(reach) if units[c].side != me.side]
            # Every sight line the shots trace, in one batch (each shot then finds its own).
            pairs = [table.gap(shooter.bases, target.bases) for shooter, target in shots]
            table.sights(self.sight_policy, [(n.a, n.b) for n in pairs])
            for shooter, target in shots:
                kind = "rocket" if shooter.get("weapon") == "rocket" else "shoot"
                yield Candidate(kind, (shooter.id, target.id))
        elif phase == "movement":
            yield from (Candidate("move", (u.id,)) for u in units if not u.get("moved"))
        elif phase == "melee":
            # Only units whose boxes may share a side (1 box apart) or whose bases may touch
            # (no more apart than their positions are uncertain) may be in contact.
            steps = table.grid(_box_size(scene)).steps
            near = (steps <= 1) | (table.unit_gaps() <= table.most_off)
            for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
                if units[i].side != units[j].side:
                    yield Candidate("melee", (units[i].id, units[j].id))
        elif phase == "morale":
            yield from (Candidate("morale", (u.id,)) for u in units if u.get("rocket_checks"))
        else:
            for unit in units:
                if read(unit, "type") == "machine-gun" and read(unit, "gun_state") != "broken":
                    yield Candidate("overheat", (unit.id,))

    left_off_when_refused = frozenset({"melee"})  # only units in contact fight

    # Outcomes: what the players report of their dice, and the changes it leads to
    outcomes = ("shoot", "rocket", "melee", "morale", "overheat", "move")

    def _shoot_form(self, asked: Asked) -> Reports:
        """The hits (the dice total), a top face when a leader check is due, the bases lost."""
        shooter, target = asked.args
        _refuse_unless_allowed(asked.answer, f"{shooter} may not shoot at {target}")
        hits = _hits_reports(SHOT, asked.unit(1), shooter, asked.data["dice"], melee=False)
        return (*hits, _removed("removed", asked.unit(1)))

    def _shoot_apply(self, asked: Asked, got: Reported) -> Changes:
        shooter, target = asked.unit(0), asked.unit(1)
        hits = _hits_changes(SHOT, target, shooter, got, melee=False)
        return (*hits, *_removed_changes(got["removed"], shooter), *_fired_changes(shooter))

    def _rocket_form(self, asked: Asked) -> Reports:
        """Where the rocket landed: on the target, a unit it may drift onto, or nothing."""
        firer, target = asked.args
        _refuse_unless_allowed(asked.answer, f"{firer} may not fire a rocket at {target}")
        on = [m["unit"] for m in asked.data["morale_checks"]]
        label, landed = say("landed_on", unit=on[0], nothing=NOTHING), (*on, NOTHING)
        return (Report("landed_on", Kind.CHOICE, label, CITE.on_target, landed, default=on[0]),)

    def _rocket_apply(self, asked: Asked, got: Reported) -> Changes:
        """A rocket causes no hits: the unit it lands on owes a morale check (line 22)."""
        firer = asked.unit(0)
        fired = _fired_changes(firer)
        if got["landed_on"] == NOTHING:
            return fired
        struck = asked.scene.unit_of(got["landed_on"])
        kind = struck.get("type")
        mod = DATA["rocket_morale"].get(kind) if isinstance(kind, str) else None
        at = "" if mod is None else f" at {mod['modifier']:+d} for {kind}"
        why = f"a rocket of {firer.id} landed on it: no hits, a morale check{at}"
        cite = CITE.rocket_no_hits if mod is None else mod["cite"]
        owes = Change(struck.id, "rocket_checks", struck.get("rocket_checks") + 1, why, cite)
        return (owes, *fired)

    def _melee_form(self, asked: Asked) -> Reports:
        """The hits each side takes, the top faces for leader checks, the bases taken off."""
        if not asked.data["in_contact"]:
            raise refusal("no_contact", a=asked.args[0], b=asked.args[1])
        ua, ub = asked.unit(0), asked.unit(1)
        sides = asked.data["sides"]
        on_a = _hits_reports(ON_A, ua, ub.id, sides[ub.id]["dice"], melee=True)
        on_b = _hits_reports(ON_B, ub, ua.id, sides[ua.id]["dice"], melee=True)
        return (*on_a, *on_b, _removed("removed_a", ua), _removed("removed_b", ub))

    def _melee_apply(self, asked: Asked, got: Reported) -> Changes:
        ua, ub = asked.unit(0), asked.unit(1)
        hits = (
            *_hits_changes(ON_A, ua, ub, got, melee=True),
            *_hits_changes(ON_B, ub, ua, got, melee=True),
        )
        removed = (*_removed_changes(got["removed_a"], ub), *_removed_changes(got["removed_b"], ua))
        return (*hits, *removed)

    def _morale_form(self, asked: Asked) -> Reports:
        """Whether the QRC's result leaves the unit broken (the one result the page knows)."""
        unit = asked.unit(0)
        label = f"is {unit.id} broken after the check? (the QRC's morale results)"
        return (Report("broken", Kind.FLAG, label, CITE.morale_qrc, default=unit.get("broken")),)

    def _morale_apply(self, asked: Asked, got: Reported) -> Changes:
        unit, broken = asked.unit(0), got["broken"]
        why = f"{'broken' if broken else 'no longer broken'} (QRC morale result)"
        changes = [Change(unit.id, "broken", broken, why, CITE.morale_qrc)]
        forced = unit.get("rocket_checks")
        if forced:
            why = "took the morale check a rocket forced"
            changes.append(Change(unit.id, "rocket_checks", forced - 1, why, CITE.rocket_no_hits))
        return tuple(changes)

    def _overheat_form(self, asked: Asked) -> Reports:
        """The 1d6 score when a check is due; for a first overheating, rest or keep firing."""
        if not asked.data["check"]:
            return ()
        label = f"the 1d6 score (it overheats on {asked.data['consecutive_fire']} or less)"
        score = Report("score", Kind.COUNT, label, CITE.overheat_roll, maximum=6)
        if asked.data["overheated_before"]:
            return (score,)
        label, choice = say("if_overheated"), tuple(DATA["overheat"]["check"]["then"])  # rest first
        rest = Report(
            "if_overheated", Kind.CHOICE, label, CITE.overheat_rest, choice, default=choice[0]
        )
        return score, rest

    def _overheat_apply(self, asked: Asked, got: Reported) -> Changes:
        """Lines 13-17: a gun rests and cools, keeps firing, breaks for good, or its run ends:
        its case's changes (sheet.toml `[overheat]`)."""
        gun = asked.unit(0)
        case, turns = _overheat_case(gun)
        then, score = DATA["overheat"][case].get("then", ()), got.get("score", 0)
        if case.startswith("check"):
            if score < 1:
                raise refusal("overheat_score", unit=asked.args[0], score=score)
            if score > turns:
                return ()
            then = then[got["if_overheated"]] if case == "check" else then
        why = {"score": score, "turns": turns}
        return tuple(
            Change(gun.id, c["field"], c["value"], c["why"].format(**why), c["cite"]) for c in then
        )

    def _move_apply(self, asked: Asked, got: Reported) -> Changes:
        """A move rolls no dice: nothing to report (the camera sees where the unit went)."""
        unit = asked.unit(0)
        return (Change(unit.id, "moved", True, "moved this turn", CITE.movement_section),)


# Reading the scene and its units under the page


def _box_size(scene: Scene) -> float:
    """The side of one box, mm: every length of the page is counted in boxes."""
    if scene.grid_box is None:
        raise refusal("no_grid")
    return scene.grid_box


def _range_bands(scene: Scene, unit: Unit) -> dict[str, float]:
    """A unit's weapon's range bands, label: limit in boxes, nearest first, from the scene's
    `ranges` (QRC)."""
    weapon, ranges = unit.get("weapon"), scene.extra.get("ranges")
    if weapon is None:
        raise refusal("no_weapon", unit=unit.id)

    def refused(text: str, **more: Any) -> QuestionError:
        example = say("ranges_example", weapon=weapon)
        return refusal(text, unit=unit.id, weapon=weapon, example=example, **more)

    if ranges is None:
        raise refused("no_ranges")
    if not isinstance(ranges, dict):
        raise refused("ranges_not_object")
    if weapon not in ranges:
        raise refused("no_range_for", known=accepted(sorted(ranges)) or "none")
    entry = ranges[weapon]
    if not isinstance(entry, dict) or not entry:
        raise refused("bad_ranges_entry")
    for label, limit in entry.items():
        if isinstance(limit, bool) or not isinstance(limit, int | float) or not limit >= 0:
            raise refused("bad_band_limit", label=label, limit=limit)
    return {str(k): float(v) for k, v in sorted(entry.items(), key=lambda band: band[1])}


def _band_of(bands: Mapping[str, float], boxes: float) -> str | None:
    """The nearest band reaching `boxes`, or None when beyond the longest."""
    return next((label for label, limit in bands.items() if within(boxes, limit)), None)


def _die(unit: Unit, melee: bool = False) -> str:
    """The die a unit rolls (lines 7-9), its `melee_die` in melee if it has one (line 35)."""
    return read(unit, "melee_die" if melee and unit.get("melee_die") is not None else "die")


def _overheat_case(gun: Unit) -> tuple[str, int]:
    """A gun's case of lines 13-17 at the end of a turn (sheet.toml `[overheat]`), its turns."""
    turns, fired = gun.get("consecutive_fire"), gun.get("fired")
    state = read(gun, "gun_state")
    hot = "_hot" if state == "overheated" else ""
    if state in ("broken", "cooling"):
        return state, turns
    if not fired:
        return f"idle{hot}", turns
    return (f"check{hot}" if turns >= N.overheat_from_turns else "early"), turns


def _cannot_fire(unit: Unit) -> str:
    """Why a unit may not fire this turn ('' when it may): a gun resting or broken (line 16)."""
    state = read(unit, "gun_state")
    return say(f"cannot_fire_{state}") if state in ("cooling", "broken") else ""


def _leader(unit: Unit) -> str | None:
    """The id of the unit's leader base, if it has one (line 4; no other role is on the page)."""
    for base in unit.bases:
        if base.role not in (None, "leader"):
            raise refusal("bad_role", base=base.id, unit=unit.id, role=base.role)
    return next((base.id for base in unit.bases if base.role), None)


def _enemies(scene: Scene, a: str, b: str, action: str) -> tuple[Unit, Unit]:
    """The two units a question names, different units of different sides (on a grid)."""
    _box_size(scene)
    return DATA.enemies(table_of(scene).unit_of(a), table_of(scene).unit_of(b), action=action)


class DiceCount(NamedTuple):
    """How many dice of which die a unit rolls and why, under its answer's keys (line 6: 0 to 1)."""

    bases: int
    leader_base: str | None
    modifiers: tuple[Modifier, ...]
    before_rounding: Fraction
    dice: int
    never_less_than_one_applied: bool
    die: str

    def as_json(self) -> dict[str, Any]:
        said = self._asdict() | {"modifiers": [m.as_json() for m in self.modifiers]}
        return said | {"before_rounding": float(self.before_rounding)}

    def said(self) -> str:
        """` including leader base x-1, +1 charging (QRC...)`, after a count of bases."""
        leader = f" including leader base {self.leader_base}" if self.leader_base else ""
        return leader + "".join(f", {m.value:+g} {m.reason}" for m in self.modifiers)


def _count_dice(unit: Unit, target: Unit, die: str, *, melee: bool) -> DiceCount:
    """A die a base, plus the QRC's modifiers, rounded up (4-6, 32-33); at least 1 to fire.
    The modifiers are those the scene gives the unit, but those given for another target."""
    key = "melee_modifiers" if melee else "fire_modifiers"
    given = unit.get(key)
    if given is not None and not isinstance(given, list):
        raise refusal("not_a_list", unit=unit.id, key=key, given=given)
    out = []
    for i, item in enumerate(given or ()):
        where = dict(unit=unit.id, key=key, i=i)
        if not isinstance(item, dict) or set(item) - {"dice", "reason", "target"}:
            raise refusal("not_an_item", **where, item=item)
        value, named = item.get("dice"), item.get("reason")
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise refusal("bad_dice", **where, value=value)
        if not isinstance(named, str) or not named.strip():
            raise refusal("bad_reason", **where, named=named)
        if item.get("target") in (None, target.id, *(b.id for b in target.bases)):
            out.append(Modifier(value, f"{named} (QRC, given in the scene)"))
    raw = len(unit.bases) + sum((Fraction(m.value) for m in out), Fraction(0))
    dice = max(math.ceil(raw), 0)
    lifted = not melee and dice == 0 and not unit.get("broken")
    mods = tuple(out)
    return DiceCount(len(unit.bases), _leader(unit), mods, raw, 1 if lifted else dice, lifted, die)


# What the answers share


def _contact(scene: Scene, ua: Unit, ub: Unit) -> tuple[str, dict[str, Any]]:
    """Base to base contact: boxes sharing a side, or bases touching (within the uncertainty)."""
    table = table_of(scene)
    places = table.grid(_box_size(scene)).places
    pa, pb = places[ua.id], places[ub.id]
    adjacent = grid_steps(pa.box, pb.box) <= 1
    steady = steady_on_grid(pa, pb, lambda x, y: grid_steps(x, y) <= 1)
    near = table.gap(ua.bases, ub.bases)
    touch = near.contact
    verdicts = (
        (touch.within, "touching"),
        (adjacent and steady, "adjacent boxes"),
        (adjacent or not steady or touch.too_close_to_call, "too close to call"),
    )
    verdict = next((said for holds, said in verdicts if holds), "not in contact")
    contact = dict(verdict=verdict, boxes=[list(pa.box), list(pb.box)], adjacent_boxes=adjacent)
    contact.update(touching=threshold_json(scene, touch), between={"a": near.a.id, "b": near.b.id})
    return verdict, {**contact, "distance": length_json(scene, near.distance)}


def _rocket_morale(unit: Unit, p: Fraction) -> dict[str, Any]:
    """The morale check a rocket forces on a unit it lands on, with the chance (line 22)."""
    kind = read(unit, "type")
    mod = DATA["rocket_morale"].get(kind, {"modifier": None, "cite": None})
    source = None if mod["cite"] is None else str(mod["cite"])
    said = {"unit": unit.id, "type": kind, "p": float(p), "exact": str(p)}
    said |= {"modifier": mod["modifier"], "source": source}
    return said | {"note": "morale procedure, modifiers and results on the QRC (not on page 3)"}


def _roll(name: str, *, total: bool = True) -> Roll:
    """A roll of sheet.toml whose faces are read off, with its total's odds (`total`)."""
    r = DATA["rolls"][name]
    faces = dice_math.total(r["dice"], r["sides"]) if total else ()
    return Roll(r["purpose"], r["dice"], r["sides"], None, faces, (), r["cite"], r["note"])


def _hits_json(dice: int, sides: int, *, halved: bool = False) -> dict[str, Any]:
    """P(k hits), the mean and P(5 hits or more); `halved`: d6s for d3s, halved (line 9)."""
    hits = dice_math.dice_sum(dice, sides, halved)
    five = float(hits.p_at_least(N.leader_check_hits))
    shown = {"distribution": list(hits.floats), "distribution_exact": list(hits.exact)}
    return {**shown, "mean": float(hits.mean), "p_at_least_5": five}


def _hits(
    dice: DiceCount, target: Unit, *, melee: bool
) -> tuple[Roll, dict[str, Any], dict[str, Any], str | None]:
    """Fire's and melee's hits: the roll whose total they are, P(k hits), and the check on the
    target's leader (5 hits or more in fire, and a top face: lines 5-10, 34-37) with its line."""
    sides, leader = DATA["dice"][dice.die]["sides"], _leader(target)
    purpose = f"hits on {target.id} (dice total)" if melee else "hits (dice total)"
    note = "the dice total is the number of hits; distribution[k] = P(k hits)"
    cite = CITE.melee_hits if melee else CITE.score_is_hits
    total = dice_math.total(dice.dice, sides)
    roll = Roll(purpose, dice.dice, sides, None, total, dice.modifiers, cite, note)
    least, why = (0, CITE.leader_face) if melee else (N.leader_check_hits, CITE.leader_check_fire)
    p = dice_math.total_with_top_face(dice.dice, sides, least) if leader else Fraction(0)
    check: dict[str, Any] = {"target_has_leader": leader is not None, "leader_base": leader}
    check.update(min_hits=least, top_face=sides, p=float(p), p_exact=str(p))
    check["source"] = [str(why), str(CITE.leader_face)]
    text = f"leader_{'melee' if melee else 'fire'}"
    said = say(text, unit=target.id, roll=roll, check=check) if leader else None
    return roll, _hits_json(dice.dice, sides), check, said


def _reasons_due(**due: Any) -> list[dict[str, Any]]:
    """The reasons of sheet.toml `[reasons]` (named as their cites) whose condition holds."""
    return [reason(DATA["reasons"][name], getattr(CITE, name)) for name, on in due.items() if on]


def _fraction_json(p: Fraction) -> dict[str, Any]:
    return {"p": float(p), "exact": str(p)}


def _boxes(n: float) -> str:
    return f"{n:g} box" if n == 1 else f"{n:g} boxes"


# Outcomes: the reports the players fill in and the changes they lead to


def _refuse_unless_allowed(res: Resolution, what: str) -> None:
    """No dice to report for a shot not allowed (but a band too close to call is the players')."""
    data = res.data
    refusals = (
        (not data["in_sight"], "out of sight"),
        (not data.get("may_fire", True), "it may not fire this turn"),
        ("dice" in data and not data["dice"]["dice"], "it has no dice"),
        (data["range"]["verdict"] != "too close to call", "out of range"),
    )
    why = next((why for refused, why in refusals if refused), None)
    if not data["allowed"] and why:
        raise refusal("no_dice", what=what, why=why)


def _hits_reports(
    names: tuple[str, str], victim: Unit, by: str, dice: Mapping[str, Any], *, melee: bool
) -> list[Report]:
    """The hits a unit takes, its enemy's dice total (the likeliest first), and whether a top
    face showed when a leader check may be due (5 hits in fire, any in melee: lines 10, 37)."""
    count, sides = dice["dice"], DATA["dice"][dice["die"]]["sides"]
    label = f"hits {victim.id} takes: the total of the {count}d{sides} of {by}"
    cite, most = CITE.melee_hits if melee else CITE.score_is_hits, count * sides
    hits = count_report(names[0], label, cite, dice_math.total(count, sides), most)
    if not _leader(victim) or most < (1 if melee else N.leader_check_hits):
        return [hits]
    label = f"one or more {sides}s rolled by {by} (a leader check on {victim.id})"
    return [hits, Report(names[1], Kind.FLAG, label, CITE.leader_face, default=False)]


def _removed(name: str, unit: Unit) -> Report:
    """The bases taken off for the hits (the QRC's Unit Stats say how many; line 4)."""
    return bases_report(name, say("bases_taken_off", unit=unit.id), CITE.dice_per_base, unit)


def _hits_changes(
    names: tuple[str, str], victim: Unit, attacker: Unit, got: Reported, *, melee: bool
) -> Changes:
    """The hits a unit takes, added to those it took before; a leader check when due."""
    hits, cite = got[names[0]], CITE.melee_hits if melee else CITE.score_is_hits
    why = f"{hits} hits from {attacker.id} (the dice total)"
    if got.get(names[1]) and (melee or hits >= N.leader_check_hits):
        sides = DATA["dice"][_die(attacker, melee=melee)]["sides"]
        why += say(f"leader_due_{'melee' if melee else 'fire'}", sides=sides, attacker=attacker.id)
    return (Change(victim.id, "hits", victim.get("hits") + hits, why, cite),)


def _removed_changes(bases: Sequence[str], attacker: Unit) -> Changes:
    return removals(bases, f"taken off for the hits of {attacker.id}", CITE.dice_per_base)


def _fired_changes(unit: Unit) -> Changes:
    """A unit fires once a turn: `fired`, and a machine gun's run of turns firing grows."""
    if unit.get("fired"):
        return ()
    fired = Change(unit.id, "fired", True, "fired this turn", CITE.gun_fired)
    turns = unit.get("consecutive_fire") + 1
    why = f"{turns} turns in a row"
    run = Change(unit.id, "consecutive_fire", turns, why, CITE.consecutive_turns)
    return (fired, run) if unit.get("type") == "machine-gun" else (fired,)


# The grid: boxes next to each other, the boxes a move reaches (lines 26-31), facings (lines
# 24-25) and where a drifting rocket lands (line 21)
DIRECTIONS: dict[str, Any] = DATA["directions"]
"""The 8 directions of the grid, each a facing in degrees and the step to the next box."""
STEP = {name: (d["step"][0], d["step"][1]) for name, d in DIRECTIONS.items()}
STEPS = {kind: tuple(STEP[name] for name in names) for kind, names in DATA["steps"].items()}
"""The one-box steps a move is made of (lines 26-31)."""


def on_table(box: Box, extent: tuple[int, int]) -> bool:
    return 0 <= box[0] < extent[0] and 0 <= box[1] < extent[1]


def reachable(kind: str, start: Box, extent: tuple[int, int]) -> list[tuple[Box, Any, Box]]:
    """(box, the first move reaching it, its first step) for each box a `kind` may move to."""
    found: dict[Box, tuple[Any, Box]] = {}
    for move in DATA["moves"][kind]:
        for steps in product(*(STEPS[s] for s in move["steps"])):
            if move.get("same_line") and len(set(steps)) > 1:
                continue
            path = list(
                accumulate(steps, lambda at, s: (at[0] + s[0], at[1] + s[1]), initial=start)
            )
            if all(on_table(box, extent) for box in path) and path[-1] != start:
                found.setdefault(path[-1], (move, steps[0]))
    return [(box, move, first) for box, (move, first) in sorted(found.items())]


def facing_name(degrees: float) -> tuple[str, float]:
    """The nearest of the 8 grid directions to a facing, and how many degrees off it is."""
    off = {name: abs(degrees - d["degrees"]) % 360.0 for name, d in DIRECTIONS.items()}
    off = {name: min(d, 360.0 - d) for name, d in off.items()}
    nearest = min(off, key=off.__getitem__)
    return nearest, off[nearest]


def parse_facing(text: str) -> str:
    """A facing asked for: a direction's name or degrees that are a multiple of 45."""
    word = text.strip().lower()
    if word in DIRECTIONS:
        return word
    try:
        nearest, off = facing_name(float(word))
    except ValueError:
        nearest, off = "", math.nan
    if off < 1e-6:
        return nearest
    raise refusal("bad_facing", facing=text, directions=accepted(DIRECTIONS))
