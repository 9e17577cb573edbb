"""europe-19c, "19th Century Europe QRS" (rules/sheets/004_8318ee244ed3ffb0.txt), in cm.

The questions, in the sheet's order (firing, command, charge, hand-to-hand, movement, morale,
formations), then what `suggest` lists at each step of the sequence of play. The sheet's tables
are in `sheet.toml`; what a unit must say and how the sheet's doubtful lines are read, in
`README.md`; what the players' dice change, at the end of the class. Lengths are mm; every
length, piece of terrain stood in and sight line is asked of the measuring layer
(`rules.measure`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any, ClassVar, Final

from ... import dice as dice_math
from ... import geometry as geo
from ...answer import Cite, Modifier, RangeBand, Resolution, Roll, Suggestion, Threshold
from ...answer import length_json as length
from ...answer import reason_json as reason
from ...answer import threshold_json as compared
from ...engine import Action, Asked, Candidate, Ruleset
from ...errors import accepted
from ...measure import Gap, Table, table_of
from ...scene import Base, Scene, TerrainKind, Unit
from ...sheetdata import load_sheet
from ...state import Change, Kind, Report, bases_report, count_report, likeliest, removals

SHEET: Final = "004_8318ee244ed3ffb0.txt"
ID: Final = "europe-19c"
MM_PER_CM: Final = 10.0
DATA: Final = load_sheet(
    Path(__file__).with_name("sheet.toml"), SHEET, ID, names=["cite", "numbers"]
)
CITE: Final[dict[str, Cite]] = DATA["cite"]
"""The sheet's single rules, by name (`CITE["arc"]`: line 74)."""
NUMBERS: Final[dict[str, Any]] = DATA["numbers"]
CHARGE, MOVE, WEAPONS, FIRING = DATA["charge"], DATA["move"], DATA["weapons"], DATA["firing"]
SAVES, MELEE, MORALE, COMMAND = DATA["saves"], DATA["melee"], DATA["morale"], DATA["command"]
SAVE_LINES: Final = {str(t["cite"]): t["cite"] for t in SAVES["terrain"].values()}
"""The saving rows' lines (lines 91-96) by the text a shot's answer quotes as its save's source."""
FORMATIONS: Final = {kind: tuple(options) for kind, options in DATA["formations"].items()}
"""Infantry line or column, artillery limbered or unlimbered (lines 15, 19); no other type."""
TERRAIN: Final = {
    name: frozenset(map(TerrainKind, kinds)) for name, kinds in DATA["terrain"].items()
}
"""The kinds of terrain each of the sheet's words names (`TERRAIN["woods-towns"]`)."""
say: Final = DATA.say
"""A text of sheet.toml's `[texts]`, its `{names}` filled in (`{cite[arc]}`)."""
say_lines: Final = DATA.lines
"""A text of several lines (`shoot`, `charge`, `melee`), a line of the answer each."""
refusal: Final = DATA.refusal
"""A question the sheet cannot answer, in the words of sheet.toml's `[refusals]`."""
read: Final = DATA.read
"""A unit's declared field (`read(unit, "fired")`), named as missing when it has none."""
STEP: Final = {p.name: p.cite for p in DATA.phases}
"""The line of each step of the sequence of play: what a unit did this turn is set by its step."""
Args = Sequence[str]
Reported = Mapping[str, Any]
Reports = tuple[Report, ...]
Changes = tuple[Change, ...]


class Europe19c(Ruleset):
    data = DATA
    title = "19th Century Europe QRS"
    unit = "cm"
    sides_rule = (
        "the sheet dices for no initiative and orders no side before another: every side acts in "
        "every step of the sequence of play (lines 5-11)"
    )
    scene_keys: ClassVar[frozenset[str]] = frozenset({"game_size"})
    """`game_size`, `standard` or `mini`: the command-roll columns (line 145)."""
    sight_policy = replace(Ruleset.sight_policy, bases_block=True)
    sight_rule: ClassVar[Cite | None] = CITE["obstructions"]

    def actions(self) -> dict[str, Action]:
        asked: tuple[Action, ...] = (self.shoot, self.command, self.charge, self.melee)
        asked += (self.move, self.morale, self.formation, self.suggest)
        return {**super().actions(), **{q.__name__: q for q in asked}}

    outcomes = ("shoot", "command", "charge", "melee", "move", "morale", "formation")
    """The questions whose dice change the game: the form the players fill (`_X_form`), what
    it changes (`_X_apply`) (README.md, "Outcomes")."""

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The weapon table's bands (lines 62-72); cavalry have no row of the firing table."""
        if kind_of(unit) == "cavalry":
            return ()
        return tuple(RangeBand(band["name"], reach, band["cite"]) for band, reach in bands_of(unit))

    def _refused(self, action: str, data: dict[str, Any], opening: Iterable[str]) -> Resolution:
        said = [say("refused", **r) for r in data["reasons"]]
        return self.answer(action, data, (*opening, *said))

    # Firing (lines 60-96)

    def shots(self, table: Table, fire: Sequence[tuple[Unit, Sequence[Unit]]]) -> list[Shot]:
        """Each firer's shot at each of its targets: why it may not fire at all, else what each of
        its bases fires at, the nearest base of the target in its range, then in its arc (all
        round from a town, line 74), then in its sight (lines 75-76), every arc and every sight
        line of all the shots asked of the measuring layer at once; then the band of each base
        that fires."""
        shots = []
        for firer, targets in fire:
            for target in targets:
                DATA.enemies(firer, target)
            refusals = _cannot_fire(firer)
            bands = [] if refusals else bands_of(firer)
            mine = [
                Shot(firer, t, table.gap(firer.bases, t.bases), refusals, bands) for t in targets
            ]
            shots += mine
            if refusals:
                continue
            longest = bands[-1][1]
            for base in firer.bases:  # the bases of each target in its range, nearest first
                in_town = bool(_in_kinds(table, base, TERRAIN["towns"]))
                away = table.distances[table.index[base.id]]
                for shot in mine:
                    order = sorted(shot.target.bases, key=lambda b: away[table.index[b.id]])
                    aims = [b for b in order if geo.within(float(away[table.index[b.id]]), longest)]
                    unc = table.uncertainty(base, order[0])
                    reach = Threshold(float(away[table.index[order[0].id]]), longest, unc)
                    shot.bases.append(BaseShot(base, in_town, reach, aims, in_range=bool(aims)))
        bases = [b for s in shots for b in s.bases]
        half = NUMBERS["arc_half_angle"]  # all round from a town
        arcs = table.in_arcs([(b.base, b.aims, 180.0 if b.in_town else half) for b in bases])
        for b, arc in zip(bases, arcs, strict=True):
            b.aims = [aim for aim, ok in zip(b.aims, arc, strict=True) if ok]
            b.in_arc = bool(b.aims)
        # One sight line clear is enough: fire is by unit, the sheet asks for no whole base.
        pairs = [(b.base, aim) for b in bases for aim in b.aims]
        sight = table.seen_pairs(self.sight_policy, pairs)
        seen = {(v.id, t.id) for (v, t), ok in zip(pairs, sight, strict=True) if ok}
        for shot in shots:
            for b in shot.bases:
                b.aim = next((aim for aim in b.aims if (b.base.id, aim.id) in seen), None)
                if b.aim is not None:
                    d = table.distance(b.base, b.aim)
                    b.band, limit = next((x, mm) for x, mm in shot.bands if geo.within(d, mm))
                    b.range = Threshold(d, limit, table.uncertainty(b.base, b.aim))
        return shots

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: range, arc, sight, dice, to-hit need, save and unsaved hits."""
        table = table_of(scene)
        firer, target = map(table.unit_of, args)
        shot = self.shots(table, [(firer, [target])])[0]
        nearest, lead, column = shot.nearest, shot.lead, FIRING["column_of"][described(target)]
        category = FIRING["columns"][column["column"]]
        data: dict[str, Any] = {"shooter": firer.id, "target": shot.target.id, "rolls": []}
        data["distance"] = length(scene, nearest.distance)
        data["target_category"] = {"column": category["label"], "why": column["why"]}
        data["target_category"]["source"] = str(category["cite"])
        opening = {"shot": shot, "apart": scene.show(nearest.distance)}  # of a refusal
        if shot.refusals:
            data |= {"band": "out-of-range", "allowed": False, "reasons": shot.refusals}
            return self._refused("shoot", data, [say("shoot-opening", **opening)])
        name, row = weapon_of(firer), firing_row(firer)
        weapon = WEAPONS[name]
        bands = [
            {"band": b["label"], "name": b["name"], "reach": length(scene, mm)}
            | {"dice_per_base": b["dice"], "source": str(b["cite"])}
            for b, mm in shot.bands
        ]
        starred = weapon.get("starred") and kind_of(firer) == "skirmishers"
        bonus = length(scene, NUMBERS["skirmisher_bonus_cm"] * MM_PER_CM) if starred else None
        data["weapon"] = {"name": name, "bands": bands, "skirmisher_bonus": bonus}
        data["firer_class"] = {"row": row["label"], "source": str(row["cite"])}
        whole = nearest.against(shot.bands[-1][1])
        data["range"] = compared(scene, whole if lead is None else lead.range)
        data["arc"] = {"half_angle": NUMBERS["arc_half_angle"], "source": str(CITE["arc"])}
        data["arc"]["all_round_in_town"] = [s.base.id for s in shot.bases if s.in_town]
        data["firing_bases"] = [s.as_json(scene) for s in shot.bases]
        fire = sum(s.aim is not None for s in shot.bases)
        data["in_sight"] = fire > 0
        if lead is None:
            near = (b["label"] for b, mm in shot.bands if geo.within(nearest.distance, mm))
            data |= {"band": next(near, "out-of-range"), "allowed": False}
            in_range = any(s.in_range for s in shot.bases)
            why = "out-of-sight" if any(s.in_arc for s in shot.bases) else "out-of-arc"
            data["reasons"] = [no_fire(why if in_range else "out-of-range")]
            return self._refused("shoot", data, [say("shoot-opening", **opening)])
        assert lead.band is not None and lead.aim is not None
        dice = sum(s.band["dice"] for s in shot.bases if s.band is not None)
        need = row["need"][column["column"]]
        save = _save(table, weapon, shot.target, lead.aim)
        save_need = save[0]
        note = f"{row['label']} against {category['label']}"  # Inf line, Art against Normal
        hit = Roll.success_roll("to hit", dice, 6, need, cite=row["cite"], note=note)
        rolls = [hit]
        if save_need is not None:
            purpose, (_, why, cite) = "save (one die per hit)", save
            rolls.append(Roll.success_roll(purpose, 1, 6, save_need, (), cite, why))
        p_save = Fraction(0) if save_need is None else dice_math.p_at_least(6, save_need)
        unsaved = dice_math.binomial(dice, dice_math.p_at_least(6, need) * (1 - p_save))
        mean = float(dice_math.mean(unsaved))
        data |= {"band": lead.band["label"], "band_name": lead.band["name"], "allowed": True}
        data |= {"reasons": [], "rolls": [r.as_json() for r in rolls], "hits": odds(hit)}
        data["save"] = {"need": save_need, "why": save[1], "source": str(save[2])}
        data["unsaved_hits"] = odds(unsaved) | {"mean": mean, "p_at_least_one": str(1 - unsaved[0])}
        effect = "each unsaved hit removes a base; each base removed is a morale test"
        data["effect"] = reason(effect, CITE["base_removed"])
        said: dict[str, Any] = {"saving": "no save", "save_says": "no saving roll"}
        if save_need is not None:
            said = {"saving": f"saved on {save_need}+", "save_says": f"save {save_need}+ a hit"}
        said |= {"shot": shot, "lead": lead, "row": row, "weapon": weapon, "hit": hit.describe()}
        said |= {"dice": dice, "need": need, "save": save, "column": column}
        said |= {"mean": mean, "fire": fire, "odds": chances(unsaved), "bases": len(firer.bases)}
        said |= {"at": scene.show(lead.range.measured), "close": close_call(lead.range)}
        return self.answer("shoot", data, say_lines("shoot", **said))

    # Command roll (lines 143-149)

    def command(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`command LEADER [standard|mini]`: the command roll table for the leader's rating."""
        leader = table_of(scene).unit_of(args[0])
        # Standard or mini game (line 145): as asked, else the scene's game_size, else standard.
        asked = args[1] if len(args) == 2 else None
        size = scene.extra.get("game_size") if asked is None else asked
        size_why = "the scene's game_size" if asked is None else "as asked"
        if size is None:
            size, size_why = "standard", "the scene gives no game_size, so the standard game"
        elif size not in ("standard", "mini"):
            where = "the scene's game_size is" if asked is None else "game size"
            raise refusal("game-size", where=where, value=size)
        rating = read(leader, "rating")
        column = DATA.field["rating"].choices.index(rating) + (3 if size == "mini" else 0)
        # Each row of the table is two faces of the D6: a third.
        rows = [{"roll": r["roll"], "score": r["scores"][column], "p": "1/3"} for r in COMMAND]
        rows = [{**row, "source": str(r["cite"])} for row, r in zip(rows, COMMAND, strict=True)]
        others = [u for u in scene.units if u.side == leader.side and u is not leader]
        side = [b.id for u in others for b in u.bases]
        note = f"{rating} leader, {size} game: the faces index the command table"
        roll = Roll("command roll", 1, 6, None, cite=CITE["command"], note=note)
        data: dict[str, Any] = {"leader": args[0], "rating": rating, "game_size": size}
        data |= {"game_size_from": size_why, "radius": None, "in_command": side}
        data["radius_note"] = "the sheet gives no command radius: every unit of the side"
        data |= {"rolls": [roll.as_json()], "outcomes": rows}
        data["mean_score"] = str(sum(Fraction(r["score"], 3) for r in rows))
        lines = [say("command", leader=leader, rating=rating, size=size, size_why=size_why)]
        lines += [say("command-row", **r) for r in rows]
        lines.append(say("command-radius", leader=leader, bases=len(side)))
        return self.answer("command", data, lines)

    # Charge sequence (lines 25-38)

    def charge(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`charge ATTACKER TARGET`: the charge table, the face struck, the move to contact."""
        table = table_of(scene)
        attacker, target = DATA.enemies(*map(table.unit_of, args))
        ours, theirs = kind_of(attacker), kind_of(target)
        in_line = formation_of(attacker) == "line"
        formation_of(target)  # read all the same: it must be one of its type's
        row = CHARGE["rows"][ours]
        entry = row["cells"][CHARGE["columns"].index(theirs)]
        near = table.gap(attacker.bases, target.bases)
        face = _face(table, near.a, near.b)
        rivals = _face_rivals(table, attacker, target, face.name)
        # The move to contact, in the slower terrain of attacker and target (never the road).
        slower = (_standing_column(table, unit)[0] for unit in (attacker, target))
        column = max(slower, key=("open", "stream", "woods-towns").index)
        move_row = MOVE["rows"][move_row_of(attacker)]
        allowance = None if (cm := move_row["cm"].get(column)) is None else cm * MM_PER_CM
        reach = None if allowance is None else near.against(allowance)
        mine, yours = len(attacker.bases), len(target.bases)
        facts = {"attacker": attacker, "target": target, "ours": ours, "theirs": theirs}
        facts |= {"mine": mine, "yours": yours, "face": face, "rivals": ", ".join(rivals)}
        facts |= {"move_row": move_row, "column": column, "gap": scene.show(near.distance)}
        facts["allowance"] = None if allowance is None else scene.show(allowance)
        refused = [  # whether each refuses the charge, its text, its line
            (entry == "no", "charge-no", row["cite"]),
            (entry == "maybe" and mine <= yours, "charge-not-larger", CITE["maybe"]),
            (ours == "infantry" and in_line, "charge-in-line", CITE["line_no_move"]),
            (bool(rivals), "charge-face-taken", CITE["one_per_face"]),
            (reach is None, "charge-no-move", move_row["cite"]),
            (reach is not None and not reach.within, "charge-beyond", CITE["contact"]),
        ]
        refusals = [reason(say(text, **facts), cite) for no, text, cite in refused if no]
        said: dict[str, Any] = {"entry": entry, "source": str(row["cite"])}
        if entry == "maybe":
            said |= {"attacker_bases": mine, "target_bases": yours, "larger": mine > yours}
            said["maybe_source"] = str(CITE["maybe"])
        flank, in_town = face.aspect is not geo.Aspect.FRONT, math.isinf(face.margin)
        data: dict[str, Any] = {"attacker": attacker.id, "target": target.id}
        data |= {"allowed": not refusals, "charge_table": said, "reasons": refusals}
        data |= {"distance": length(scene, near.distance), "face": face.name}
        data["between"] = {"attacker": near.a.id, "target": near.b.id}
        margin = None if in_town else length(scene, face.margin)
        data |= {"aspect": face.aspect.value, "aspect_margin": margin}
        data |= {"face_taken_by": rivals, "move_column": column}
        data["move"] = None if reach is None else compared(scene, reach)
        bonus = "+1 die per base attacking flank or rear"
        data["melee_bonus"] = reason(bonus, CITE["flank"]) if flank else None
        notes = (n for n in DATA["notes"]["charge"] if n.get("only", ours) == ours)
        data["notes"] = [reason(n["reason"], n["cite"]) for n in notes]
        facts |= {"row": row, "entry": entry, "near": near, "may": "may not" if refusals else "may"}
        facts |= {"attacker_is": described(attacker), "target_is": described(target)}
        facts["town"] = say("charge-in-town") if in_town else ""
        facts["flank"] = say("charge-flank") if flank else ""
        lines = say_lines("charge", **facts)
        lines += [] if reach is None else [say("charge-move", close=close_call(reach), **facts)]
        return self._refused("charge", data, lines)

    # Hand-to-hand (lines 98-124)

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee ATTACKER DEFENDER`: dice per base, hits on 4+, who retreats or is eliminated."""
        table = table_of(scene)
        attacker, defender = DATA.enemies(*map(table.unit_of, args))
        near = table.gap(attacker.bases, defender.bases)
        touch, face = near.contact, _face(table, near.a, near.b)
        a_side, a_roll, a_line = _melee_side(table, attacker, defender, near, face, charging=True)
        d_side, d_roll, d_line = _melee_side(table, defender, attacker, near, face, charging=False)
        # The defender loses when it takes as many hits as the attacker or more (line 122).
        mine, yours = a_roll.distribution, d_roll.distribution
        hits = [(i, j, p * q) for i, p in enumerate(mine) for j, q in enumerate(yours)]
        p_defender = sum((p for i, j, p in hits if i >= j), Fraction(0))
        p_tie, p_attacker = sum((p for i, j, p in hits if i == j), Fraction(0)), 1 - p_defender
        outcome: dict[str, Any] = {"defender_loses": str(p_defender), "tie": str(p_tie)}
        outcome |= {"attacker_loses": str(p_attacker), "loser_morale_tests": 2}
        outcome |= {"defender_loses_float": float(p_defender)}
        outcome |= {"attacker_loses_float": float(p_attacker)}
        outcome |= {"loser": _loser_fate(defender), "attacker_loser": _loser_fate(attacker)}
        sources = ("retreat", "tie", "artillery_eliminated", "blocked", "lost_melee")
        outcome["sources"] = [str(CITE[c]) for c in sources]
        data: dict[str, Any] = {"attacker": attacker.id, "defender": defender.id}
        data |= {"in_contact": not touch.beyond, "contact": compared(scene, touch)}
        data |= {"face": face.name, "sides": {"attacker": a_side, "defender": d_side}}
        data |= {"rolls": [a_roll.as_json(), d_roll.as_json()], "outcome": outcome}
        data["notes"] = [reason(n["reason"], n["cite"]) for n in DATA["notes"]["melee"]]
        facts = data | {"apart": scene.show(near.distance)}
        opening = [say("melee-close")] if touch.too_close_to_call else []
        opening = opening if not touch.beyond else [say("melee-apart", **facts)]
        return self.answer("melee", data, [*opening, a_line, d_line, *say_lines("melee", **facts)])

    # Movement (lines 40-58)

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT`: the movement allowance where the unit stands, pivots and the road."""
        table = table_of(scene)
        (unit,) = map(table.unit_of, args)
        row = MOVE["rows"][move_row_of(unit)]
        still = {"line": "line_no_move", "unlimbered": "unlimbered_no_move"}
        static = still.get(formation_of(unit) or "")
        column, why = _standing_column(table, unit)
        road = _road_check(table, unit)
        if column == "open" and road is not None and road["eligible"]:
            column, why = "road", road["why"]
        cm = row["cm"].get(column)
        allowance = 0.0 if static else None if cm is None else cm * MM_PER_CM
        pivot = Fraction(row["pivot_cost"]) if "pivot_cost" in row else None
        data: dict[str, Any] = {"unit": unit.id, "row": row["label"], "column": column}
        data |= {"why": why, "allowance": None if allowance is None else length(scene, allowance)}
        data["table_row"] = {c: None for c in MOVE["columns"]}
        data["table_row"] |= {c: length(scene, v * MM_PER_CM) for c, v in row["cm"].items()}
        data["pivot_cost"] = None if pivot is None else str(pivot)
        cost = None if pivot is None or not allowance else float(allowance * pivot)
        data["pivot_cost_length"] = None if cost is None else length(scene, cost)
        data |= {"may_move": bool(allowance), "may_pivot": True, "road": road}
        data["source"] = str(row["cite"] if static is None else CITE[static])
        data["notes"] = [reason(n["reason"], n["cite"]) for n in DATA["notes"]["move"]]
        facts = data | {"cm": cm, "described": described(unit), "row_cite": row["cite"]}
        verdict = "move-static" if static else "move-na" if cm is None else "move"
        lines = [say(verdict, **facts), say("pivot-free" if pivot is None else "pivot", **facts)]
        return self.answer("move", data, lines + ([] if road is None else [say("road", **facts)]))

    # Morale (lines 126-141)

    def morale(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`morale UNIT`: the score needed, how many tests the unit's state calls for, the odds."""
        (unit,) = map(table_of(scene).unit_of, args)
        level = read(unit, "quality")
        need, level_cite = MORALE[level]["need"], MORALE[level]["cite"]
        removed = read(unit, "bases_removed")
        if read(unit, "fired_on") and kind_of(unit) != "cavalry":
            raise refusal("fired-on", unit=unit, kind=kind_of(unit))
        causes = [  # how many tests each calls for (lines 130-132)
            (removed, f"{removed} base(s) removed", CITE["base_removed"]),
            (read(unit, "fired_on"), "charging cavalry fired on by the target", CITE["fired_on"]),
            (2 * read(unit, "lost_melee"), "lost hand-to-hand combat", CITE["lost_melee"]),
        ]
        reasons = [{**reason(why, cite), "tests": int(n)} for n, why, cite in causes if n]
        tests = sum(int(r["tests"]) for r in reasons)
        note = f"{level}: {need}+ to pass each test"
        roll = Roll.success_roll("morale test", tests, 6, need, cite=level_cite, note=note)
        lost = tuple(reversed(roll.distribution))  # failures = tests - passes
        data: dict[str, Any] = {"unit": unit.id, "level": level, "need": need}
        data |= {"p_pass": str(roll.p_success), "tests": tests, "reasons": reasons}
        data |= {"rolls": [roll.as_json()], "bases_lost": odds(lost)}
        data["bases_lost"]["source"] = str(CITE["failure"])
        lines = [say("morale", level_cite=level_cite, **data)]
        lines += [say("morale-reason", **r) for r in reasons]
        lines.append(say("morale-fails", odds=chances(lost)) if tests else say("morale-none"))
        return self.answer("morale", data, lines)

    # Formations (lines 13-23)

    def formation(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`formation UNIT`: the unit's formation, the other it may change to, what each allows."""
        (unit,) = map(table_of(scene).unit_of, args)
        kind, current = kind_of(unit), formation_of(unit)
        options = DATA["formations"].get(kind, {})
        data: dict[str, Any] = {"unit": unit.id, "formation": current}
        data["may_change_to"] = [f for f in options if f != current]
        data["formations"] = {f: reason(o["allows"], o["cite"]) for f, o in options.items()}
        if not options:
            return self.answer("formation", data, [say("formation-none", unit=unit, kind=kind)])
        lines = [say("formation", unit=unit, current=current)]
        lines += [say("formation-option", name=f, **o) for f, o in options.items()]
        return self.answer("formation", data, lines)

    # What `suggest` lists at each step of the sequence of play (the engine's `suggest`). Once a
    # turn: a unit that fired is not listed to fire again, one that charged or moved not to charge
    # or move again (a charger's move is its move to contact, line 38), a leader with a command
    # score not to roll again.

    def candidates(self, scene: Scene, phase: str) -> Iterable[Candidate]:
        table, units = table_of(scene), scene.units
        slack = table.most_off + geo.EPS  # more than any length can be off by
        if phase == "change-formation":
            leaders = (u for u in units if u.get("rating") is not None)
            unrolled = (u for u in leaders if not read(u, "command_score"))
            yield from (Candidate("command", (u.id,)) for u in unrolled)
            yield from (Candidate("formation", (u.id,)) for u in units if kind_of(u) in FORMATIONS)
        elif phase == "charge":
            for a in units:
                # The charge table's Ski and Art rows are all No (lines 31-32).
                if kind_of(a) in ("skirmishers", "artillery") or _done_moving(a):
                    continue
                cm = MOVE["rows"][move_row_of(a)]["cm"]
                fastest = max(v for c, v in cm.items() if c != "road") * MM_PER_CM
                targets = table.units_within(a, fastest + slack)
                yield from (Candidate("charge", (a.id, t.id)) for t in targets if t.side != a.side)
        elif phase == "movement":
            yield from (Candidate("move", (u.id,)) for u in units if not _done_moving(u))
        elif phase == "firing":
            firers = [f for f in units if not _cannot_fire(f) and not read(f, "fired")]
            near = [(f, table.units_within(f, bands_of(f)[-1][1])) for f in firers]
            shots = self.shots(table, [(f, [t for t in ts if t.side != f.side]) for f, ts in near])
            yield from (Candidate("shoot", (s.firer.id, s.target.id)) for s in shots if s.allowed)
        elif phase == "hand-to-hand":
            for i, a in enumerate(units):
                close = table.units_within(a, slack)
                enemies = [d for d in close if table.unit_row(d) > i and d.side != a.side]
                yield from filter(None, (self._fight(table, a, d) for d in enemies))

    def standing_candidates(self, scene: Scene) -> Iterable[Candidate]:
        """Every unit whose state calls for a morale test (lines 128-132), at every step."""
        for u in scene.units:
            if read(u, "bases_removed") or read(u, "fired_on") or read(u, "lost_melee"):
                yield Candidate("morale", (u.id,))

    def summarise(self, scene: Scene, candidate: Candidate, result: Resolution) -> str:
        """The engine's summary; a melee's also says who was taken as the attacker, and why."""
        note = candidate.note if isinstance(candidate, Fight) else ""
        return super().summarise(scene, candidate, result) + (f" ({note})" if note else "")

    def suggestion_lines(self, data: dict[str, Any], items: list[Suggestion]) -> tuple[str, ...]:
        head = f"{len(items)} resolutions for {data['phase'] or 'every phase'}"
        return (head, *(f"  [{i.kind}] {i.summary}" for i in items))

    def _fight(self, table: Table, a: Unit, d: Unit) -> Fight | None:
        """The hand-to-hand `suggest` lists for two units (`a` first in the scene): the one
        marked `charged` attacks, else `a`; the other when the hand-to-hand table has `-` that
        way round (a note says which and why); None when neither way can fight (two skirmisher
        units side by side) or the two are not in base contact."""
        if not table.gap(a.bases, d.bases).touching:
            return None
        first, note = (a, d), ""
        if read(d, "charged") and not read(a, "charged"):
            first = (d, a)
        elif read(a, "charged") == read(d, "charged"):
            note = f"neither or both marked charged: {a.id} taken as the attacker"
        for attacker, defender in (first, first[::-1]):
            sides = ((attacker, defender, True), (defender, attacker, False))
            if all(_melee_dice(*side)[2] is not None for side in sides):
                return Fight("melee", (attacker.id, defender.id), note)
            dash = f"{attacker.id} against {defender.id} is '-' on the hand-to-hand table"
            note = f"{dash}: {defender.id} taken as the attacker"
        return None

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the players report after rolling each question's dice, and the changes of
    # state it leads to

    def _shoot_form(self, asked: Asked) -> Reports:
        """Hits (the firing table's need), saves (one die a hit, when the target has a save)
        and the bases taken off, one for each unsaved hit (lines 80-96, 130)."""
        if not asked.data["allowed"]:
            return ()
        hit, save = asked.data["rolls"][0], asked.data["save"]
        dice, need, save_need = hit["dice"], hit["need"], save["need"]
        label = f"hits: the dice of the {dice}D6 showing {need}+ ({hit['note']})"
        hit_odds = dice_math.successes(dice, 6, need)
        row = firing_row(asked.unit(0))
        reports = [count_report("hits", label, row["cite"], hit_odds)]
        hits, saves = likeliest(hit_odds), 0
        if save_need is not None:
            label = f"saves: the saving dice (one a hit) showing {save_need}+"
            save_odds = dice_math.successes(hits, 6, save_need)
            cite = SAVE_LINES[save["source"]]
            reports.append(count_report("saved", label, cite, save_odds, most=dice))
            saves = likeliest(save_odds)
        return (*reports, _bases_report(asked.unit(1), hits - saves, "one for each unsaved hit"))

    def _shoot_apply(self, asked: Asked, reported: Reported) -> Changes:
        firer, target = asked.unit(0), asked.unit(1)
        hits, saved = int(reported["hits"]), int(reported.get("saved", 0))
        if saved > hits:
            said = {"args": " ".join(asked.args), "saved": saved, "hits": hits}
            raise refusal("too-many-saves", line=SAVES["terrain"]["open"]["cite"], **said)
        lost = _check_removed(target, reported["removed"], hits - saved, "unsaved hits")
        changes = [Change(firer.id, "fired", True, "fired this turn", STEP["firing"])]
        changes += removals(lost, f"unsaved hit from {firer.id}", CITE["base_removed"])
        why = f"{len(lost)} base(s) removed: a morale test each"
        after = read(target, "bases_removed") + len(lost)
        changes.append(Change(target.id, "bases_removed", after, why, CITE["base_removed"]))
        # Charging cavalry in contact with the firer it charged is fired on by its target.
        table = table_of(asked.scene)
        touching = table.gap(firer.bases, target.bases).touching
        charging = touching and kind_of(target) == "cavalry" and read(target, "charged")
        if charging:
            why = f"charging cavalry fired on by its target {firer.id}: a morale test"
            changes.append(Change(target.id, "fired_on", True, why, CITE["fired_on"]))
        return tuple(changes)

    def _command_form(self, asked: Asked) -> Reports:
        """The row of the command table the leader's D6 fell in (lines 145-149)."""
        label = "the command D6: 1-2, 3-4 or 5-6 (a row of the command table)"
        rows = tuple(row["roll"] for row in COMMAND)
        return (Report("roll", Kind.CHOICE, label, CITE["command"], choices=rows, default=rows[1]),)

    def _command_apply(self, asked: Asked, reported: Reported) -> Changes:
        data = asked.data
        row = next(r for r in COMMAND if r["roll"] == reported["roll"])
        score = next(o["score"] for o in data["outcomes"] if o["roll"] == row["roll"])
        why = f"rolled {row['roll']}: {data['rating']} leader, {data['game_size']} game"
        return (Change(str(data["leader"]), "command_score", int(score), why, row["cite"]),)

    def _charge_form(self, asked: Asked) -> Reports:
        """Whether the charger reached base contact (line 38), asked when the charge is allowed
        or refused only for a move to contact too close to call (the players judge it); nothing
        for a refused charge."""
        data = asked.data
        close = data["move"] is not None and data["move"]["verdict"] == "too close to call"
        only_reach = all(r["source"] == str(CITE["contact"]) for r in data["reasons"])
        if not (data["allowed"] or (close and only_reach)):
            return ()
        label = f"the charger moved into base contact with {data['target']}"
        return (Report("contact", Kind.FLAG, label, CITE["contact"], default=data["allowed"]),)

    def _charge_apply(self, asked: Asked, reported: Reported) -> Changes:
        attacker, target = asked.unit(0).id, asked.unit(1).id
        why = "its move this turn was the charge"
        moved = Change(attacker, "moved", True, why, CITE["contact"])
        charged = Change(attacker, "charged", True, f"charged {target}", STEP["charge"])
        return (charged, moved) if reported["contact"] else (moved,)

    def _melee_form(self, asked: Asked) -> Reports:
        """The hits each side scored (4+ a die, line 98) and whether the loser's retreat is
        blocked (line 121)."""
        data, need = asked.data, NUMBERS["melee_hit_need"]
        reports = []
        for name, roll in zip(("attacker", "defender"), data["rolls"], strict=True):
            label = say("report-hits", unit=data[name], dice=roll["dice"], need=need)
            hit_odds = dice_math.successes(roll["dice"], 6, need)
            reports.append(count_report(f"{name}_hits", label, CITE["melee_hit"], hit_odds))
        label = say("report-blocked")
        return (
            *reports,
            Report("retreat_blocked", Kind.FLAG, label, CITE["blocked"], default=False),
        )

    def _melee_apply(self, asked: Asked, reported: Reported) -> Changes:
        """The side that took more hits loses, a tie the defender (lines 120-122)."""
        attacker, defender = asked.unit(0), asked.unit(1)
        ours, theirs = int(reported["attacker_hits"]), int(reported["defender_hits"])
        loser, cite = attacker if ours < theirs else defender, "retreat"
        why = f"took {max(ours, theirs)} hits to {min(ours, theirs)}"
        if ours == theirs:
            cite, why = "tie", f"a tie at {ours} hits: the defender"
        bases = [b.id for b in loser.bases]
        if kind_of(loser) == "artillery":
            why = f"{why}; artillery that lose are eliminated"
            return removals(bases, why, CITE["artillery_eliminated"])
        if reported["retreat_blocked"]:
            return removals(bases, f"{why}; its retreat is blocked", CITE["blocked"])
        retreat = f"retreats {NUMBERS['retreat_cm']} cm facing the enemy"
        why = f"lost hand-to-hand ({why}): {retreat} and takes two morale tests"
        return (Change(loser.id, "lost_melee", True, why, CITE[cite]),)

    def _move_form(self, asked: Asked) -> Reports:
        """Artillery: whether it pivoted (it then cannot fire, line 78); nothing else to say."""
        if kind_of(asked.unit(0)) != "artillery":
            return ()
        label = say("report-pivoted")
        return (Report("pivoted", Kind.FLAG, label, CITE["pivoted"], default=False),)

    def _move_apply(self, asked: Asked, reported: Reported) -> Changes:
        unit = asked.unit(0)
        changes = [Change(unit.id, "moved", True, "moved this turn", STEP["movement"])]
        if reported.get("pivoted"):
            why = "pivoted: it cannot fire this turn"
            changes.append(Change(unit.id, "pivoted", True, why, CITE["pivoted"]))
        return tuple(changes)

    def _morale_form(self, asked: Asked) -> Reports:
        """The tests failed (a D6 under the level's score each) and the bases they take off
        (line 141); nothing when the unit's state gives no reason to test."""
        data = asked.data
        tests, unit = int(data["tests"]), asked.unit(0)
        if not tests:
            return ()
        lost = tuple(Fraction(p) for p in data["bases_lost"]["exact"])
        label = f"tests failed: the {tests} D6 showing under {data['need']}"
        cite, failed = MORALE[str(data["level"])]["cite"], likeliest(lost)
        return (
            count_report("failed", label, cite, lost, most=tests),
            _bases_report(unit, failed, "one for each failed test", CITE["failure"], tests),
        )

    def _morale_apply(self, asked: Asked, reported: Reported) -> Changes:
        """The bases the failed tests take off; the tests are taken (lines 130-132, 141)."""
        if not asked.data["tests"]:
            return ()
        unit = asked.unit(0)
        lost = _check_removed(unit, reported["removed"], int(reported["failed"]), "failed tests")
        changes = list(removals(lost, "failed a morale test", CITE["failure"]))
        taken = "its tests are taken"
        changes.append(Change(unit.id, "bases_removed", 0, taken, CITE["base_removed"]))
        changes += [Change(unit.id, k, False, taken, CITE[k]) for k in ("fired_on", "lost_melee")]
        return tuple(changes)

    def _formation_form(self, asked: Asked) -> Reports:
        """The formation the unit is in now (lines 15, 19); nothing for a type with none."""
        data = asked.data
        options = tuple(data["formations"])
        if not options:
            return ()
        label = f"the formation it is in now: {' or '.join(options)}"
        cite = CITE[f"{kind_of(asked.unit(0))}_formations"]
        default = data["may_change_to"][0]
        return (Report("formation", Kind.CHOICE, label, cite, choices=options, default=default),)

    def _formation_apply(self, asked: Asked, reported: Reported) -> Changes:
        data = asked.data
        if not data["formations"]:
            return ()  # a type with no formations: nothing to change
        before, after = data["formation"], reported["formation"]
        why = f"changed formation from {before} to {after}"
        return (Change(str(data["unit"]), "formation", after, why, STEP["change-formation"]),)


@dataclass(frozen=True, slots=True)
class Fight(Candidate):
    """A hand-to-hand `suggest` lists, with who was taken as the attacker and why."""

    note: str = ""


@dataclass(slots=True)
class BaseShot:
    """One firing base against the target unit: the bases of the target it may fire at
    (`aims`, nearest first: in range, then in arc), the one it fires at (`aim`, the nearest in
    sight), how far, in which band of its weapon."""

    base: Base
    in_town: bool
    """It fires all round (line 74)."""
    range: Threshold
    """The distance to the aim (else to the target's nearest base) against the reach of the
    weapon (of its band, when it fires)."""
    aims: list[Base]
    in_range: bool
    in_arc: bool = False
    aim: Base | None = None
    band: dict[str, Any] | None = None

    def as_json(self, scene: Scene) -> dict[str, Any]:
        aim, band = self.aim, self.band or {"label": None, "dice": 0}
        out: dict[str, Any] = {"base": self.base.id}
        out["target_base"] = None if aim is None else aim.id
        out |= {"distance": length(scene, self.range.measured), "band": band["label"]}
        out |= {"dice": band["dice"], "in_range": self.in_range, "in_arc": self.in_arc}
        return out | {"in_sight": aim is not None, "range": compared(scene, self.range)}


@dataclass(slots=True)
class Shot:
    """A unit's shot at another (`Europe19c.shots`): allowed when nothing refuses it and a base
    fires (`lead`, the nearest that does)."""

    firer: Unit
    target: Unit
    nearest: Gap
    refusals: list[dict[str, Any]]
    bands: list[tuple[dict[str, Any], float]]
    """The bands of the firer's weapon, with their reach in mm (`bands_of`); none when refused."""
    bases: list[BaseShot] = field(default_factory=list)

    @property
    def lead(self) -> BaseShot | None:
        """The nearest base that fires, if any does."""
        firing = [b for b in self.bases if b.band is not None]
        return min(firing, key=lambda b: b.range.measured, default=None)

    @property
    def allowed(self) -> bool:
        return not self.refusals and self.lead is not None


# Reading a unit in the sheet's words


kind_of = partial(read, name="type")
"""The unit's `type`: infantry, cavalry, dragoons, skirmishers or artillery."""


def formation_of(unit: Unit) -> str | None:
    """Infantry line or column, artillery limbered or unlimbered; None for the other types."""
    words = FORMATIONS.get(kind_of(unit))
    return None if words is None else read(unit, "formation", words)


def troops(unit: Unit) -> str:
    """The unit's type, infantry with its formation (`infantry-line`): how the firing and the
    hand-to-hand tables tell troops apart."""
    kind = kind_of(unit)
    return f"infantry-{formation_of(unit)}" if kind == "infantry" else kind


def described(unit: Unit) -> str:
    """`close order infantry in line`, `unlimbered artillery`, `cavalry`."""
    kind, formation = kind_of(unit), formation_of(unit)
    if kind == "infantry":
        return f"{read(unit, 'order')} order infantry in {formation}"
    return f"{formation} artillery" if kind == "artillery" else kind


def weapon_of(unit: Unit) -> str:
    """The unit's row of the weapon table: artillery carries an artillery weapon, every other
    type a small arm."""
    kind = kind_of(unit)
    arms = [k for k, w in WEAPONS.items() if w.get("artillery", False) == (kind == "artillery")]
    name = unit.get("weapon")
    if name in DATA.field["weapon"].choices and name not in arms:
        raise refusal("weapon", unit=unit, kind=kind, weapon=name, accepted=accepted(arms))
    return str(read(unit, "weapon", arms))


def bands_of(unit: Unit) -> list[tuple[dict[str, Any], float]]:
    """The bands of the unit's weapon, nearest first, with their reach in mm: skirmishers'
    starred weapons reach 8 cm further (line 72)."""
    weapon, kind = WEAPONS[weapon_of(unit)], kind_of(unit)
    bonus = NUMBERS["skirmisher_bonus_cm"] if weapon.get("starred") and kind == "skirmishers" else 0
    return [(band, (band["reach_cm"] + bonus) * MM_PER_CM) for band in weapon["bands"]]


def firing_row(unit: Unit) -> dict[str, Any]:
    """The unit's row of the firing table (sheet.toml `[firing]`)."""
    return FIRING["rows"][FIRING["row_of"][troops(unit)]]


def move_row_of(unit: Unit) -> str:
    """The unit's row of the movement table."""
    kind = kind_of(unit)
    return f"infantry-{read(unit, 'order')}" if kind == "infantry" else kind


# The table: contact, terrain, faces


def _in_kinds(table: Table, base: Base, kinds: frozenset[TerrainKind]) -> list[str]:
    """Ids of the pieces of these kinds holding the base's centre."""
    return [t.id for t in table.centre_in(base) if t.kind in kinds]


def _face(table: Table, attacker: Base, target: Base) -> geo.Face:
    """Which face of `target` the attacker stands against (`geometry.aspect`); in a town only the
    front, at an infinite margin: it has no flank or rear."""
    if _in_kinds(table, target, TERRAIN["towns"]):
        return geo.Face("front", geo.Aspect.FRONT, math.inf)
    return geo.aspect(attacker, target)


def _face_rivals(table: Table, attacker: Unit, target: Unit, face: str) -> list[str]:
    """Other units of the attacker's side in contact with the same face of the target."""
    out = []
    for other in table.units_within(target, table.most_off + geo.EPS):
        if other.side == attacker.side and other is not attacker:
            near = table.gap(other.bases, target.bases)
            if near.touching and _face(table, near.a, near.b).name == face:
                out.append(other.id)
    return out


def _standing_column(table: Table, unit: Unit) -> tuple[str, str]:
    """The slowest movement column of the terrain the unit's bases stand in, and why: woods and
    towns, then streams (a bridge negates the stream, line 50), else open."""
    woods, streams = set[str](), set[str]()
    for base in unit.bases:
        kinds = {s.terrain.kind: s.terrain.id for s in table.standing(base)}
        woods |= {i for k, i in kinds.items() if k in TERRAIN["woods-towns"]}
        bridged = TerrainKind.BRIDGE in kinds
        streams |= {i for k, i in kinds.items() if k in TERRAIN["streams"] and not bridged}
    for column, pieces in (("woods-towns", woods), ("stream", streams)):
        if pieces:
            return column, f"stands in {', '.join(sorted(pieces))}"
    return "open", "stands in the open"


def _road_check(table: Table, unit: Unit) -> dict[str, Any] | None:
    """Whether the road rate applies (line 52), why, the nearest enemy against 24 cm; None
    when the unit is not on a road."""
    if not all(_in_kinds(table, b, TERRAIN["roads"]) for b in unit.bases):
        return None
    road = {"eligible": True, "enemy": None, "source": str(CITE["road"])}
    enemies = [b for u in table.scene.units if u.side != unit.side for b in u.bases]
    if not enemies:
        return road | {"why": "every base is on the road and no enemy is on the table"}
    near = table.gap(unit.bases, enemies)
    t = near.against(NUMBERS["road_enemy_cm"] * MM_PER_CM)
    far, close = near.distance >= t.limit, " (too close to call)" if t.too_close_to_call else ""
    facts = {"near": near, "away": table.scene.show(near.distance), "close": close}
    why = say("road-enemy", than="at least" if far else "under", **facts)
    return road | {"eligible": far, "why": why, "enemy": compared(table.scene, t)}


def _done_moving(unit: Unit) -> bool:
    """The unit charged (its move to contact, line 38) or moved this turn."""
    return read(unit, "moved") or read(unit, "charged")


# Firing and hand-to-hand


def _cannot_fire(unit: Unit) -> list[dict[str, Any]]:
    """Why the unit may not fire at all: cavalry, limbered or pivoted artillery."""
    kind = kind_of(unit)
    refused = {"cavalry": kind == "cavalry", "limbered": formation_of(unit) == "limbered"}
    refused["pivoted"] = kind == "artillery" and read(unit, "pivoted")
    return [no_fire(why) for why, yes in refused.items() if yes]


def _save(
    table: Table, weapon: dict[str, Any], target: Unit, aimed: Base
) -> tuple[int | None, str, Cite]:
    """The saving roll (lines 91-96): the terrain of the base fired at, the weapon, the target's
    formation."""
    woods = _in_kinds(table, aimed, TERRAIN["woods-towns"])
    terrain = SAVES["terrain"]["woods-towns" if woods else "open"]
    column = "all-else"
    if weapon.get("breech_loader", False):
        spread = kind_of(target) == "skirmishers" or formation_of(target) in ("line", "unlimbered")
        column = "sk-ln" if spread else "dgns-col"
    where = f"{aimed.id} stands in {woods[0]}" if woods else f"{aimed.id} stands in the open"
    label = SAVES["columns"][column]["label"]
    return terrain["need"].get(column), f"{where}, {label}", terrain["cite"]


def _melee_dice(unit: Unit, enemy: Unit, charging: bool) -> tuple[dict[str, Any], str, int | None]:
    """A side's row of the hand-to-hand table, the enemy's column, and the dice a base it gives
    (None: `-`, that combat cannot happen) (lines 100-112)."""
    row = MELEE["rows"][MELEE["row_of"][kind_of(unit)]["charging" if charging else "defending"]]
    column = MELEE["column_of"][troops(enemy)]
    return row, MELEE["columns"][column], row["dice"].get(column)


def _melee_side(
    table: Table, unit: Unit, enemy: Unit, near: Gap, face: geo.Face, charging: bool
) -> tuple[dict[str, Any], Roll, str]:
    """One side's dice in hand-to-hand, as the answer shows them, the roll and its line: its row
    against the enemy's column (lines 100-112), then the modifiers a base (lines 114-115)."""
    row, column, per_base = _melee_dice(unit, enemy, charging)
    if per_base is None:
        raise refusal("no-melee", unit=unit, row=row, enemy=enemy, column=column)
    base, enemy_base = (near.a, near.b) if charging else (near.b, near.a)
    front_defence = not charging and face.aspect is geo.Aspect.FRONT
    on_line = table.pieces_on_lines([((enemy_base.x, enemy_base.y), (base.x, base.y))])[0]
    streams = [p for p, inside in on_line if p.kind in TERRAIN["streams"] and inside > geo.EPS]
    river = streams if front_defence else []
    hill = _in_kinds(table, base, TERRAIN["hills"])
    higher = bool(hill) and not _in_kinds(table, enemy_base, TERRAIN["hills"])
    on_infantry = kind_of(unit) == "cavalry" and kind_of(enemy) == "infantry"
    facts = {"face": face, "river": river[0].id if river else "", "hill": hill[0] if hill else ""}
    found = [  # whether each modifier applies, its dice a base, its line and text
        (charging and face.aspect is not geo.Aspect.FRONT, 1, "flank"),
        (bool(river), 1, "riverbank"),
        (higher, 1, "higher"),
        (on_infantry and read(enemy, "order") == "close", -1, "cavalry_vs_close_order"),
    ]
    mods = [Modifier(value, say(key, **facts), CITE[key]) for yes, value, key in found if yes]
    each, bases = max(0, per_base + int(sum(m.value for m in mods))), len(unit.bases)
    purpose, need, note = f"hits by {unit.id}", NUMBERS["melee_hit_need"], f"{bases} bases x {each}"
    roll = Roll.success_roll(purpose, each * bases, 6, need, mods, CITE["melee_hit"], note)
    json = {"unit": unit.id, "row": row["label"], "column": column, "source": str(row["cite"])}
    json |= {"table_dice_per_base": per_base, "dice_per_base": each, "bases": bases}
    json |= {"modifiers": [m.as_json() for m in mods], "hits": odds(roll)}
    said = "".join(f"; {m.value:+g} {m.reason} [{m.cite}]" for m in mods)
    return json, roll, say("melee-side", mods=said, roll=roll.describe(), **json)


def _loser_fate(unit: Unit) -> str:
    return say("fate-artillery" if kind_of(unit) == "artillery" else "fate")


# Small pieces of answers


def no_fire(why: str) -> dict[str, Any]:
    """Why a unit may not fire, or fires at nothing, as `sheet.toml` words it (`[no_fire]`)."""
    return reason(DATA["no_fire"][why]["reason"], DATA["no_fire"][why]["cite"])


def odds(chances: Roll | Sequence[Fraction]) -> dict[str, Any]:
    """A distribution as an answer's JSON gives it: as floats, and exact as text (`1/6`)."""
    dist = chances.distribution if isinstance(chances, Roll) else chances
    return {"distribution": dice_math.as_floats(dist), "exact": [str(p) for p in dist]}


def chances(dist: Sequence[Fraction]) -> str:
    """A distribution as a line gives it: `0: 1/4, 1: 3/4`, the impossible left out."""
    return ", ".join(f"{k}: {p}" for k, p in enumerate(dist) if p)


def close_call(t: Threshold) -> str:
    return " - too close to call" if t.too_close_to_call else ""


def _bases_report(
    unit: Unit, likely: int, why: str, cite: Cite = CITE["base_removed"], most: int | None = None
) -> Report:
    """Which bases of `unit` the players take off; first shown: its last `likely` bases."""
    label = f"bases of {unit.id} taken off: {why}"
    return bases_report("removed", label, cite, unit, most, likely)


def _check_removed(unit: Unit, removed: Sequence[str], count: int, what: str) -> list[str]:
    """The ids of the bases named, when they are as many as `count` calls for (all the unit's
    bases at most); a `QuestionError` otherwise."""
    wanted = min(count, len(unit.bases))
    if len(removed) != wanted:
        said = {"count": count, "what": what, "wanted": wanted, "unit": unit}
        names = ", ".join(removed) or "none"
        raise refusal("removed", named=len(removed), names=names, **said)
    return [b.id for b in unit.bases if b.id in set(removed)]
