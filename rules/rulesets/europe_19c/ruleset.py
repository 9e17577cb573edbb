"""europe-19c, "19th Century Europe QRS" (rules/sheets/004_8318ee244ed3ffb0.txt), in cm: the
mechanics. The sheet's tables are in `sheet.toml` (named in `sheet.py`); what a unit must say and
how the sheet's doubtful lines are read, in `README.md`; what the players' dice change, in
`outcomes.py`. Every length and sight line is asked of the measuring layer (`rules.measure`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from types import MappingProxyType
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ... import dice as dice_math
from ... import geometry as geo
from ...answer import (
    Cite,
    Modifier,
    RangeBand,
    Resolution,
    Roll,
    Suggestion,
    Threshold,
    length_json,
    threshold_json,
)
from ...engine import Action, Candidate, OutcomeRule, Ruleset, check_attr, expect_args
from ...errors import MissingAttribute, QuestionError
from ...measure import Table, table_of
from ...scene import Base, Scene, TerrainKind, Unit
from . import outcomes
from .sheet import (
    CHARGE,
    CITE,
    COMMAND,
    FIRING,
    FORMATIONS,
    ID,
    MELEE,
    MM_PER_CM,
    MORALE,
    MOVE_COLUMNS,
    MOVE_ROWS,
    NUMBERS,
    PHASE_STEPS,
    ROADS,
    SAVES,
    SHEET,
    STREAMS,
    TOWNS,
    UNIT_FIELDS,
    WOODS_TOWNS,
    WORDS,
    bands_of,
    contact,
    count,
    described,
    flag,
    formation_of,
    game_size,
    in_contact,
    kind_of,
    move_row,
    order_of,
    reason,
    shown,
    weapon_of,
)


class Europe19c(Ruleset):
    id = ID
    title = "19th Century Europe QRS"
    sheet = SHEET
    unit = "cm"
    phases = tuple(p.name for p in PHASE_STEPS)
    phase_steps = PHASE_STEPS
    sides_rule = (
        "the sheet dices for no initiative and orders no side before another: every side acts in "
        "every step of the sequence of play (lines 5-11)"
    )
    unit_fields = UNIT_FIELDS
    scene_keys: ClassVar[frozenset[str]] = frozenset({"game_size"})
    """`game_size`, `standard` or `mini`: the command-roll columns (line 145)."""
    bases_block_sight = True
    sight_rule: ClassVar[Cite | None] = Cite(
        SHEET, 75, "Woods, Towns, Hills, other Units are obstructions"
    )

    def actions(self) -> dict[str, Action]:
        return {
            **super().actions(),
            "shoot": self.shoot,
            "command": self.command,
            "charge": self.charge,
            "melee": self.melee,
            "move": self.move,
            "morale": self.morale,
            "formation": self.formation,
            "suggest": self.suggest,
        }

    def outcomes(self) -> Mapping[str, OutcomeRule]:
        return outcomes.rules(self)

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The weapon table's bands (lines 62-72); cavalry have no row of the firing table."""
        kind = kind_of(unit)
        if kind == "cavalry":
            return ()
        bands = bands_of(weapon_of(unit, kind)[1], kind)
        return tuple(RangeBand(band["name"], reach, band["cite"]) for band, reach in bands)

    # ----------------------------------------------------------------------------------------
    # shoot (lines 60-96)

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: range, arc, sight, dice, to-hit need, save and unsaved hits."""
        firer, target = (
            scene.unit_of(i) for i in expect_args("shoot", args, ("SHOOTER", "TARGET"))
        )
        return self._shoot(table_of(scene), firer, target)

    def shot(self, table: Table, firer: Unit, target: Unit) -> Shot:
        """What a unit's shot at another is: why it may not fire, else each base's target base
        (the nearest in range, arc and sight), its band and dice, the need and the save."""
        _check_enemies(firer, target)
        category, category_why = _target_column(target)
        kind, formation = kind_of(firer), formation_of(firer)
        shot = Shot(firer, target, table.unit_distance(firer, target), category, category_why)
        if kind == "cavalry":
            why = "cavalry do not fire: the firing table has no cavalry row"
            shot.refusals.append(reason(why, FIRING["rows"]["inf-line-art"]["cite"]))
        if formation == "limbered":
            shot.refusals.append(reason("limbered artillery can not fire", CITE["limbered"]))
        if kind == "artillery" and flag(firer, "pivoted"):
            shot.refusals.append(reason("the artillery pivoted this turn", CITE["pivoted"]))
        if shot.refusals:
            return shot
        shot.weapon, shot.arms = weapon_of(firer, kind)
        shot.bands, shot.row = bands_of(shot.arms, kind), _firer_row(kind, formation)
        shot.bases = self._base_shots(table, firer, target, shot.bands)
        firing = [s for s in shot.bases if s.aim is not None]
        if not firing:
            return shot
        shot.lead = min(firing, key=lambda s: s.distance)
        shot.dice = sum(s.dice for s in firing)
        shot.need = FIRING["rows"][shot.row]["need"][category]
        assert shot.lead.aim is not None
        shot.save = _save(table, shot.arms, target, shot.lead.aim)
        return shot

    def _base_shots(
        self, table: Table, firer: Unit, target: Unit, bands: list[tuple[dict[str, Any], float]]
    ) -> list[BaseShot]:
        """What each base of the firer may do: the target's bases in its range, then in its arc
        (all round in a town, line 74), then in its sight (lines 75-76; every sight line of the
        unit asked at once); the nearest base left is the one it fires at."""
        longest = bands[-1][1]
        shots, arcs = [], []
        for base in firer.bases:
            in_town = bool(_in_kinds(table, base, TOWNS))
            away = {b.id: table.distance(base, b) for b in target.bases}
            order = sorted(target.bases, key=lambda b: away[b.id])
            d0 = away[order[0].id]
            shot = BaseShot(
                base, in_town, d0, Threshold(d0, longest, table.uncertainty(base, order[0]))
            )
            in_range = [aim for aim in order if geo.within(away[aim.id], longest)]
            half = 180.0 if in_town else NUMBERS["arc_half_angle"]
            in_arc = table.in_arc(base, in_range, half)
            arcs.append([aim for aim, ok in zip(in_range, in_arc, strict=True) if ok])
            shot.in_range, shot.in_arc = bool(in_range), bool(arcs[-1])
            shots.append(shot)
        pairs = [(s.base, aim) for s, aims in zip(shots, arcs, strict=True) for aim in aims]
        seen = {
            (v.id, t.id) for (v, t), ok in zip(pairs, self._seen(table, pairs), strict=True) if ok
        }
        for shot, aims in zip(shots, arcs, strict=True):
            aim = next((a for a in aims if (shot.base.id, a.id) in seen), None)
            if aim is not None:
                d = shot.distance = table.distance(shot.base, aim)
                band, limit = next((b, mm) for b, mm in bands if geo.within(d, mm))
                shot.seen, shot.aim, shot.band, shot.dice = True, aim, band, band["dice"]
                shot.threshold = Threshold(d, limit, table.uncertainty(shot.base, aim))
        return shots

    def _seen(self, table: Table, pairs: Sequence[tuple[Base, Base]]) -> list[bool]:
        """Whether each viewer sees its target: one sight line clear is enough (the sheet does
        not ask for the whole base), all the pairs asked of the measuring layer at once."""
        if not pairs:
            return []
        viewers = np.array(table.rows([v for v, _ in pairs]), dtype=int)
        targets = np.array(table.rows([t for _, t in pairs]), dtype=int)
        return table.seen(self.sight_policy, viewers, targets, entire=False).tolist()

    def _shoot(self, table: Table, firer: Unit, target: Unit) -> Resolution:
        scene = table.scene
        shot = self.shot(table, firer, target)
        column = FIRING["columns"][shot.category]
        data: dict[str, Any] = {
            "action": "shoot",
            "ruleset": self.id,
            "shooter": firer.id,
            "target": target.id,
            "distance": length_json(scene, shot.nearest.distance),
            "target_category": {
                "column": column["label"],
                "why": shot.category_why,
                "source": str(column["cite"]),
            },
        }
        nearest = shot.nearest
        opening = (
            f"{firer.id} fires at {target.id}: {shown(scene, nearest.distance)} edge to edge "
            "at the nearest"
        )
        if shot.refusals:
            data.update(band="out-of-range", allowed=False, reasons=shot.refusals, rolls=[])
            said = [f"not allowed: {r['reason']} ({r['source']})" for r in shot.refusals]
            return Resolution("shoot", MappingProxyType(data), (opening, *said))
        row = FIRING["rows"][shot.row]
        bonus = shot.arms.get("starred", False) and kind_of(firer) == "skirmishers"
        data["weapon"] = {
            "name": shot.weapon,
            "bands": [
                {
                    "band": b["label"],
                    "name": b["name"],
                    "reach": length_json(scene, mm),
                    "dice_per_base": b["dice"],
                    "source": str(b["cite"]),
                }
                for b, mm in shot.bands
            ],
            "skirmisher_bonus": length_json(scene, NUMBERS["skirmisher_bonus_cm"] * MM_PER_CM)
            if bonus
            else None,
        }
        data["firer_class"] = {"row": row["label"], "source": str(row["cite"])}
        lead, nearest = shot.lead, shot.nearest
        whole = Threshold(
            nearest.distance, shot.bands[-1][1], table.uncertainty(nearest.a, nearest.b)
        )
        data["range"] = threshold_json(scene, whole if lead is None else lead.threshold)
        data["arc"] = {
            "half_angle": NUMBERS["arc_half_angle"],
            "all_round_in_town": [s.base.id for s in shot.bases if s.in_town],
            "source": str(CITE["arc"]),
        }
        data["firing_bases"] = [s.as_json(scene) for s in shot.bases]
        if lead is None:
            why = _why_no_shot(shot.bases)
            band = next(
                (b["label"] for b, mm in shot.bands if geo.within(nearest.distance, mm)), None
            )
            data.update(
                band=band or "out-of-range",
                allowed=False,
                in_sight=any(s.seen for s in shot.bases),
                reasons=[why],
                rolls=[],
            )
            said = [f"not allowed: {why['reason']} ({why['source']})"]
            return Resolution("shoot", MappingProxyType(data), (opening, *said))
        assert lead.band is not None and lead.aim is not None and shot.save is not None
        dice, need, (save_need, save_why, save_cite) = shot.dice, shot.need, shot.save
        hit = Roll.success_roll("to hit", dice, 6, need, cite=row["cite"], note=shot.row_note)
        rolls = [hit.as_json()]
        if save_need is not None:
            save = Roll.success_roll(
                "save (one die per hit)", 1, 6, save_need, cite=save_cite, note=save_why
            )
            rolls.append(save.as_json())
        p_save = Fraction(0) if save_need is None else dice_math.p_at_least(6, save_need)
        unsaved = dice_math.binomial(dice, dice_math.p_at_least(6, need) * (1 - p_save))
        mean = float(dice_math.mean(unsaved))
        data.update(
            band=lead.band["label"],
            band_name=lead.band["name"],
            allowed=True,
            in_sight=True,
            reasons=[],
            rolls=rolls,
            hits={
                "distribution": dice_math.as_floats(hit.distribution),
                "exact": _exact(hit.distribution),
            },
            save={"need": save_need, "why": save_why, "source": str(save_cite)},
            unsaved_hits={
                "distribution": dice_math.as_floats(unsaved),
                "exact": _exact(unsaved),
                "mean": mean,
                "p_at_least_one": str(1 - unsaved[0]),
            },
            effect=reason(
                "each unsaved hit removes a base; each base removed is a morale test",
                CITE["base_removed"],
            ),
        )
        saved = "no save" if save_need is None else f"saved on {save_need}+"
        lines = [
            f"{firer.id} fires at {target.id}: {dice}D6 hitting on {need}+, {saved}, "
            f"{mean:.2f} unsaved hits expected",
            f"{len([s for s in shot.bases if s.aim])} of {len(firer.bases)} bases fire "
            f"({shot.arms['name']}, {lead.band['name']}, {lead.band['cite']}); nearest firing base "
            f"{shown(scene, lead.distance)} from {lead.aim.id}"
            + (" - too close to call" if lead.threshold.too_close_to_call else ""),
            f"{hit.describe()} [{row['cite']}]; {shot.category_why}",
            f"no saving roll: {save_why} [{save_cite}]"
            if save_need is None
            else f"save {save_need}+ a hit: {save_why} [{save_cite}]",
            "unsaved hits: "
            + ", ".join(f"{k}: {p}" for k, p in enumerate(unsaved) if p)
            + f"; each removes a base and is a morale test [{CITE['base_removed']}]",
        ]
        return Resolution("shoot", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # command (lines 143-149)

    def command(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`command LEADER [standard|mini]`: the command roll table for the leader's rating."""
        if len(args) not in (1, 2):
            raise QuestionError(
                f"command takes 1 or 2 arguments (command LEADER [standard|mini]), got "
                f"{len(args)}: {' '.join(args) or 'none'}"
            )
        leader = scene.unit_of(args[0])
        return self._command(table_of(scene), leader, args[1] if len(args) == 2 else None, args[0])

    def _command(
        self, table: Table, leader: Unit, size: str | None = None, named: str | None = None
    ) -> Resolution:
        """The command roll; `named` is how the question named the leader (its id or a base's)."""
        scene = table.scene
        size, size_why = game_size(scene, size)
        rating = check_attr(leader, "rating", WORDS["rating"], ruleset=self.id)
        column = WORDS["rating"].index(rating) + (3 if size == "mini" else 0)
        outcomes = [
            {
                "roll": row["roll"],
                "score": row["scores"][column],
                "p": "1/3",
                "source": str(row["cite"]),
            }
            for row in COMMAND
        ]
        in_command = [
            b.id for u in scene.units if u.side == leader.side and u is not leader for b in u.bases
        ]
        note = f"{rating} leader, {size} game: the faces index the command table"
        roll = Roll("command roll", 1, 6, None, cite=CITE["command"], note=note)
        data = {
            "action": "command",
            "ruleset": self.id,
            "leader": named or leader.id,
            "rating": rating,
            "game_size": size,
            "game_size_from": size_why,
            "radius": None,
            "radius_note": "the sheet gives no command radius: every unit of the side",
            "in_command": in_command,
            "rolls": [roll.as_json()],
            "outcomes": outcomes,
            # Each row is two faces of the D6, a third.
            "mean_score": str(sum(Fraction(o["score"], 3) for o in outcomes)),
        }
        lines = [
            f"command roll for {leader.id} ({rating}, {size} game: {size_why}) [{CITE['command']}]",
            *(f"  D6 {o['roll']}: {o['score']} [{o['source']}]" for o in outcomes),
            "the sheet gives no command radius: every other unit of side "
            f"{leader.side!r} is in command ({len(in_command)} bases)",
        ]
        return Resolution("command", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # charge (lines 25-38)

    def charge(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`charge ATTACKER TARGET`: the charge table, the face struck, the move to contact."""
        names = expect_args("charge", args, ("ATTACKER", "TARGET"))
        return self._charge(table_of(scene), *(scene.unit_of(i) for i in names))

    def _charge(self, table: Table, attacker: Unit, target: Unit) -> Resolution:
        scene = table.scene
        _check_enemies(attacker, target)
        a_type, t_type = kind_of(attacker), kind_of(target)
        a_form, _ = formation_of(attacker), formation_of(target)
        row = CHARGE["rows"][a_type]
        entry = row["cells"][CHARGE["columns"].index(t_type)]
        refusals: list[dict[str, Any]] = []
        table_says: dict[str, Any] = {"entry": entry, "source": str(row["cite"])}
        if entry == "no":
            refusals.append(reason(f"{a_type} may not charge {t_type}", row["cite"]))
        elif entry == "maybe":
            ours, theirs = len(attacker.bases), len(target.bases)
            table_says.update(
                attacker_bases=ours,
                target_bases=theirs,
                larger=ours > theirs,
                maybe_source=str(CITE["maybe"]),
            )
            if ours <= theirs:
                why = (
                    f"maybe, but {attacker.id} ({ours} bases) does not begin larger than "
                    f"{target.id} ({theirs} bases)"
                )
                refusals.append(reason(why, CITE["maybe"]))
        if a_type == "infantry" and a_form == "line":
            refusals.append(reason("infantry in line may not move", CITE["line_no_move"]))
        near = table.unit_distance(attacker, target)
        face = _face(table, near.a, near.b)
        rivals = _face_rivals(table, attacker, target, face.name)
        if rivals:
            why = f"the {face.name} of {target.id} is already attacked by {', '.join(rivals)}"
            refusals.append(reason(why, CITE["one_per_face"]))
        allowance, column, why = _charge_allowance(table, attacker, target)
        reach: Threshold | None = None
        if allowance is None:
            refusals.append(reason(why, MOVE_ROWS[move_row(attacker)]["cite"]))
        else:
            reach = Threshold(near.distance, allowance, table.uncertainty(near.a, near.b))
            if not reach.within:
                why = (
                    f"{shown(scene, near.distance)} to contact, beyond the "
                    f"{shown(scene, allowance)} move ({column})"
                )
                refusals.append(reason(why, CITE["contact"]))
        flank = face.aspect is not geo.Aspect.FRONT
        fired_on = "if the target fires on the charging cavalry, the cavalry test morale"
        data: dict[str, Any] = {
            "action": "charge",
            "ruleset": self.id,
            "attacker": attacker.id,
            "target": target.id,
            "allowed": not refusals,
            "charge_table": table_says,
            "distance": length_json(scene, near.distance),
            "between": {"attacker": near.a.id, "target": near.b.id},
            "face": face.name,
            "aspect": face.aspect.value,
            "aspect_margin": None if math.isinf(face.margin) else length_json(scene, face.margin),
            "face_taken_by": rivals,
            "move": None if reach is None else threshold_json(scene, reach),
            "move_column": column,
            "melee_bonus": reason("+1 die per base attacking flank or rear", CITE["flank"])
            if flank
            else None,
            "reasons": refusals,
            "notes": [
                reason("the charger may pivot 45 degrees", CITE["pivot_45"]),
                *([reason(fired_on, CITE["fired_on"])] if a_type == "cavalry" else []),
            ],
        }
        verdict = "may not charge" if refusals else "may charge"
        lines = [
            f"{attacker.id} ({described(attacker)}) {verdict} {target.id} "
            f"({described(target)}): charge table says {entry} [{row['cite']}]",
            f"{near.a.id} strikes the {face.name} of {near.b.id}"
            + (f" [{CITE['no_flank_in_town']}]" if math.isinf(face.margin) else "")
            + (f"; +1 die per base in hand-to-hand [{CITE['flank']}]" if flank else ""),
        ]
        if reach is not None:
            lines.append(
                f"{shown(scene, near.distance)} to contact, move {shown(scene, reach.limit)} "
                f"({column}) [{CITE['contact']}]"
                + (" - too close to call" if reach.too_close_to_call else "")
            )
        lines += [f"not allowed: {r['reason']} ({r['source']})" for r in refusals]
        return Resolution("charge", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # melee (lines 98-124)

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee ATTACKER DEFENDER`: dice per base, hits on 4+, who retreats or is eliminated."""
        names = expect_args("melee", args, ("ATTACKER", "DEFENDER"))
        return self._melee(table_of(scene), *(scene.unit_of(i) for i in names))

    def _melee(self, table: Table, attacker: Unit, defender: Unit) -> Resolution:
        scene = table.scene
        _check_enemies(attacker, defender)
        near = table.unit_distance(attacker, defender)
        touch = contact(table, near)
        face = _face(table, near.a, near.b)
        ours = _melee_side(table, attacker, defender, near.a, near.b, True, face)
        theirs = _melee_side(table, defender, attacker, near.b, near.a, False, face)
        a_hits, d_hits = ours.roll.distribution, theirs.roll.distribution
        # The defender loses when it takes as many hits as the attacker or more (line 122).
        p_defender = sum(
            (pa * pd for i, pa in enumerate(a_hits) for j, pd in enumerate(d_hits) if i >= j),
            Fraction(0),
        )
        p_tie = sum((pa * pd for pa, pd in zip(a_hits, d_hits, strict=False)), Fraction(0))
        p_attacker = 1 - p_defender
        cites = ("retreat", "tie", "artillery_eliminated", "blocked", "lost_melee")
        multiple = (
            "in multiple combats the defender may only inflict casualties on the unit to its front"
        )
        data = {
            "action": "melee",
            "ruleset": self.id,
            "attacker": attacker.id,
            "defender": defender.id,
            "in_contact": in_contact(touch),
            "contact": threshold_json(scene, touch),
            "face": face.name,
            "sides": {"attacker": ours.as_json(), "defender": theirs.as_json()},
            "rolls": [ours.roll.as_json(), theirs.roll.as_json()],
            "outcome": {
                "defender_loses": str(p_defender),
                "attacker_loses": str(p_attacker),
                "tie": str(p_tie),
                "defender_loses_float": float(p_defender),
                "attacker_loses_float": float(p_attacker),
                "loser": _loser_fate(defender),
                "attacker_loser": _loser_fate(attacker),
                "loser_morale_tests": 2,
                "sources": [str(CITE[c]) for c in cites],
            },
            "notes": [
                reason(multiple, CITE["multiple_combats"]),
                reason("if a unit vacates a town the attacker may occupy it", CITE["town_vacated"]),
            ],
        }
        lines = []
        if not in_contact(touch):
            lines.append(
                f"{attacker.id} and {defender.id} are not in base contact "
                f"({shown(scene, near.distance)} apart); the dice below are what contact would give"
            )
        elif touch.too_close_to_call:
            lines.append("base contact is too close to call; taken as in contact")
        lines += [
            ours.describe(),
            theirs.describe(),
            f"{defender.id} loses (takes more hits, or a tie) with chance {p_defender} "
            f"(tie {p_tie}) and {_loser_fate(defender)} [{CITE['retreat']}; {CITE['tie']}]",
            f"{attacker.id} loses with chance {p_attacker} and {_loser_fate(attacker)}; "
            f"the loser takes two morale tests [{CITE['lost_melee']}]",
        ]
        return Resolution("melee", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # move (lines 40-58)

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT`: the movement allowance where the unit stands, pivots and the road."""
        (name,) = expect_args("move", args, ("UNIT",))
        return self._move(table_of(scene), scene.unit_of(name))

    def _move(self, table: Table, unit: Unit) -> Resolution:
        scene = table.scene
        row = MOVE_ROWS[move_row(unit)]
        formation = formation_of(unit)
        column, why = _standing_column(table, unit)
        road = _road_check(table, unit)
        if column == "open" and road is not None and road[0]:
            column, why = "road", road[1]
        cm = row["cm"].get(column)
        static = {"line": "line_no_move", "unlimbered": "unlimbered_no_move"}.get(formation or "")
        allowance: float | None
        if static is not None:
            allowance = 0.0
            verdict = f"{described(unit)} may not move but may pivot [{CITE[static]}]"
        elif cm is None:
            allowance = None
            verdict = f"{row['label']} may not move in {column} (N/A) [{row['cite']}]"
        else:
            allowance = cm * MM_PER_CM
            verdict = f"{row['label']} moves {cm} cm in {column} ({why}) [{row['cite']}]"
        pivot: Fraction | None = row["pivot_cost"]
        cells = {c: row["cm"].get(c) for c in MOVE_COLUMNS}
        data = {
            "action": "move",
            "ruleset": self.id,
            "unit": unit.id,
            "row": row["label"],
            "column": column,
            "why": why,
            "allowance": None if allowance is None else length_json(scene, allowance),
            "table_row": {
                c: None if v is None else length_json(scene, v * MM_PER_CM)
                for c, v in cells.items()
            },
            "pivot_cost": None if pivot is None else str(pivot),
            "pivot_cost_length": None
            if pivot is None or not allowance
            else length_json(scene, float(allowance * pivot)),
            "may_move": bool(allowance),
            "may_pivot": True,
            "road": None
            if road is None
            else {
                "eligible": road[0],
                "why": road[1],
                "enemy": road[2],
                "source": str(CITE["road"]),
            },
            "source": str(row["cite"] if static is None else CITE[static]),
            "notes": [
                reason("bridges negate streams", CITE["bridge"]),
                reason(
                    "only skirmishers may pass through friendly units", CITE["interpenetration"]
                ),
            ],
        }
        lines = [
            f"{unit.id}: {verdict}",
            f"pivots cost nothing [{row['cite']}]"
            if pivot is None
            else f"each pivot costs {pivot} of the move [{row['cite']}]",
        ]
        if road is not None:
            lines.append(f"road: {road[1]} [{CITE['road']}]")
        return Resolution("move", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # morale (lines 126-141)

    def morale(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`morale UNIT`: the score needed, how many tests the unit's state calls for, the odds."""
        (name,) = expect_args("morale", args, ("UNIT",))
        return self._morale(table_of(scene), scene.unit_of(name))

    def _morale(self, table: Table, unit: Unit) -> Resolution:
        level = check_attr(unit, "quality", WORDS["quality"], ruleset=self.id)
        need, level_cite = MORALE[level]["need"], MORALE[level]["cite"]
        reasons: list[dict[str, Any]] = []
        removed = count(unit, "bases_removed")
        if removed:
            why = f"{removed} base(s) removed"
            reasons.append({**reason(why, CITE["base_removed"]), "tests": removed})
        if flag(unit, "fired_on"):
            if kind_of(unit) != "cavalry":
                raise QuestionError(
                    f"{ID}: unit {unit.id!r} has fired_on true but is {kind_of(unit)}; only "
                    f"charging cavalry test for being fired on ({CITE['fired_on']})"
                )
            why = "charging cavalry fired on by the target"
            reasons.append({**reason(why, CITE["fired_on"]), "tests": 1})
        if flag(unit, "lost_melee"):
            reasons.append({**reason("lost hand-to-hand combat", CITE["lost_melee"]), "tests": 2})
        tests = sum(int(r["tests"]) for r in reasons)
        note = f"{level}: {need}+ to pass each test"
        roll = Roll.success_roll("morale test", tests, 6, need, cite=level_cite, note=note)
        lost = tuple(reversed(roll.distribution))  # failures = tests - passes
        p_pass = dice_math.p_at_least(6, need)
        data = {
            "action": "morale",
            "ruleset": self.id,
            "unit": unit.id,
            "level": level,
            "need": need,
            "p_pass": str(p_pass),
            "tests": tests,
            "reasons": reasons,
            "rolls": [roll.as_json()],
            "bases_lost": {
                "distribution": dice_math.as_floats(lost),
                "exact": _exact(lost),
                "source": str(CITE["failure"]),
            },
        }
        lines = [f"{unit.id} is {level}: {need}+ on a D6 passes ({p_pass} a test) [{level_cite}]"]
        if tests:
            lines += [f"  {r['tests']} test(s): {r['reason']} [{r['source']}]" for r in reasons]
            lines.append(
                "bases lost (a failure removes a base): "
                + ", ".join(f"{k}: {p}" for k, p in enumerate(lost) if p)
                + f" [{CITE['failure']}]"
            )
        else:
            lines.append(
                "its state gives no reason to test now (bases_removed, fired_on, lost_melee)"
            )
        return Resolution("morale", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # formation (lines 13-23)

    def formation(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`formation UNIT`: the unit's formation, the other it may change to, what each allows."""
        (name,) = expect_args("formation", args, ("UNIT",))
        return self._formation(table_of(scene), scene.unit_of(name))

    def _formation(self, table: Table, unit: Unit) -> Resolution:
        kind, current = kind_of(unit), formation_of(unit)
        options = {
            "infantry": {
                "line": ("may not move but may pivot", CITE["line_no_move"]),
                "column": (
                    "moves and charges; fires on the Infantry Col row",
                    FIRING["rows"]["infantry-col"]["cite"],
                ),
            },
            "artillery": {
                "limbered": ("can not fire; moves", CITE["limbered"]),
                "unlimbered": ("can not move but may pivot; fires", CITE["unlimbered_no_move"]),
            },
        }.get(kind, {})
        data = {
            "action": "formation",
            "ruleset": self.id,
            "unit": unit.id,
            "formation": current,
            "may_change_to": [f for f in options if f != current],
            "formations": {f: reason(text, c) for f, (text, c) in options.items()},
        }
        if not options:
            lines = [
                f"{unit.id} ({kind}): the sheet gives formations only to infantry and "
                f"artillery [{CITE['infantry_formations']}]"
            ]
        else:
            lines = [f"{unit.id} is in {current}"]
            lines += [f"  {f}: {text} [{c}]" for f, (text, c) in options.items()]
        return Resolution("formation", MappingProxyType(data), tuple(lines))

    # ----------------------------------------------------------------------------------------
    # suggest: what each step of the sequence of play asks (the engine's `suggest` lists them)

    def suggestion_context(self, scene: Scene) -> Suggesting:
        return Suggesting(table_of(scene), {u.id: u for u in scene.units})

    def candidates(self, context: Suggesting, phase: str) -> Iterable[Candidate]:
        """Once a turn: a unit that fired is not suggested to fire again, one that charged or
        moved not to charge or move again (a charger's move is its move to contact, line 38),
        and a leader with a command score not to roll again."""
        table = context.table
        units = table.scene.units
        slack = 2 * table.most_uncertain + geo.EPS  # more than any length can be off
        if phase == "change-formation":
            yield from (
                Candidate("command", (u.id,))
                for u in units
                if u.get("rating") is not None and not count(u, "command_score")
            )
            yield from (Candidate("formation", (u.id,)) for u in units if kind_of(u) in FORMATIONS)
        elif phase == "charge":
            for a in units:
                # The charge table's Ski and Art rows are all No (lines 31-32).
                if kind_of(a) in ("skirmishers", "artillery") or _done_moving(a):
                    continue
                row = MOVE_ROWS[move_row(a)]["cm"]
                fastest = max(row.get(c) or 0 for c in ("open", "woods-towns", "stream"))
                for t in _units_near(table, a, fastest * MM_PER_CM + slack):
                    if t.side != a.side:
                        yield Candidate("charge", (a.id, t.id))
        elif phase == "movement":
            yield from (Candidate("move", (u.id,)) for u in units if not _done_moving(u))
        elif phase == "firing":
            may_fire = self._shots_in_sight(table)
            for f in units:
                reach = _firer_reach(f)
                for t in [] if reach is None else _units_near(table, f, reach):
                    if t.side == f.side:
                        continue
                    if (f.id, t.id) in may_fire:
                        yield Candidate("shoot", (f.id, t.id))
                    else:
                        _target_column(t)  # not listed; its attributes are checked all the same
        elif phase == "hand-to-hand":
            for i, a in enumerate(units):
                for d in _units_near(table, a, slack):
                    if table.unit_row(d) > i and d.side != a.side:
                        fight = self._melee_order(table, a, d)
                        if fight is not None:
                            yield Candidate("melee", (fight[0].id, fight[1].id))

    def standing_candidates(self, context: Suggesting) -> Iterable[Candidate]:
        """Every unit whose state calls for a morale test (lines 128-132)."""
        for u in context.table.scene.units:
            if count(u, "bases_removed") or flag(u, "fired_on") or flag(u, "lost_melee"):
                yield Candidate("morale", (u.id,))

    def answer_candidate(self, context: Suggesting, candidate: Candidate) -> Resolution:
        answers: dict[str, Callable[..., Resolution]] = {
            "command": self._command,
            "formation": self._formation,
            "charge": self._charge,
            "move": self._move,
            "shoot": self._shoot,
            "melee": self._melee,
            "morale": self._morale,
        }
        return answers[candidate.kind](context.table, *(context.units[i] for i in candidate.args))

    def summarise(self, context: Suggesting, candidate: Candidate, result: Resolution) -> str:
        """The answer's first line; a melee's says who was taken as the attacker, and why."""
        if candidate.kind != "melee":
            return result.lines[0]
        table = context.table
        pair = sorted((context.units[i] for i in candidate.args), key=table.unit_row)
        fight = self._melee_order(table, *pair)
        return result.lines[0] + (f" ({fight[2]})" if fight and fight[2] else "")

    def suggestion_lines(self, phase: str | None, items: Sequence[Suggestion]) -> tuple[str, ...]:
        head = f"{len(items)} resolutions for {phase or 'every phase'}"
        return (head, *(f"  [{i.kind}] {i.summary}" for i in items))

    def _melee_order(self, table: Table, a: Unit, d: Unit) -> tuple[Unit, Unit, str] | None:
        """Who attacks in a melee `suggest` lists, for two units in base contact (`a` first in
        the scene), and a note when it is not plain: the unit marked `charged`, else `a`; the
        other when the hand-to-hand table has `-` that way round; None when neither way can
        fight (two skirmisher units side by side) or the two are not in contact."""
        attacker, defender, note = a, d, ""
        if flag(d, "charged") and not flag(a, "charged"):
            attacker, defender = d, a
        elif flag(a, "charged") == flag(d, "charged"):
            note = f"neither or both marked charged: {a.id} taken as the attacker"
        if not self._may_fight(table, attacker, defender):
            note = (
                f"{attacker.id} against {defender.id} is '-' on the hand-to-hand table: "
                f"{defender.id} taken as the attacker"
            )
            attacker, defender = defender, attacker
            if not self._may_fight(table, attacker, defender):
                return None
        if not in_contact(contact(table, table.unit_distance(attacker, defender))):
            return None
        return attacker, defender, note

    def _may_fight(self, table: Table, attacker: Unit, defender: Unit) -> bool:
        """Whether the hand-to-hand table lets `attacker` fight `defender` (a `-` is refused)."""
        try:
            self._melee(table, attacker, defender)
        except MissingAttribute:
            raise
        except QuestionError:
            return False
        return True

    def _shots_in_sight(self, table: Table) -> set[tuple[str, str]]:
        """The (firer, target) unit ids of every shot some base of the firer may take: a base
        of the target in its range, its arc and its sight (as `shot` judges them), every arc
        asked of the measuring layer in one batch and every sight line in one more."""
        asks: list[tuple[Base, list[Base], float]] = []
        for firer in table.scene.units:
            reach = _firer_reach(firer)
            if reach is None:
                continue
            enemies = [b for u in table.scene.units if u.side != firer.side for b in u.bases]
            for base in firer.bases:
                half = 180.0 if _in_kinds(table, base, TOWNS) else NUMBERS["arc_half_angle"]
                near = geo.within(table.block([base], enemies)[0], reach)
                asks.append((base, [enemies[k] for k in np.flatnonzero(near).tolist()], half))
        arcs = table.in_arcs(asks)
        pairs = [
            (base, aim)
            for (base, in_range, _), ok in zip(asks, arcs, strict=True)
            for aim, in_arc in zip(in_range, ok, strict=True)
            if in_arc
        ]
        seen = self._seen(table, pairs)
        return {(b.unit_id, aim.unit_id) for (b, aim), ok in zip(pairs, seen, strict=True) if ok}


# --------------------------------------------------------------------------------------------
# What the actions are made of


class Suggesting(NamedTuple):
    """What every question of one `suggest` is asked in: the table, and its units by id."""

    table: Table
    units: Mapping[str, Unit]


@dataclass(slots=True)
class BaseShot:
    """What one firing base can do against the target unit."""

    base: Base
    in_town: bool
    distance: float
    """To the base it fires at, else to the nearest base of the target (mm)."""
    threshold: Threshold
    in_range: bool = False
    in_arc: bool = False
    seen: bool = False
    aim: Base | None = None
    """The base it fires at: the nearest in range, arc and sight."""
    band: dict[str, Any] | None = None
    dice: int = 0

    def as_json(self, scene: Scene) -> dict[str, Any]:
        return {
            "base": self.base.id,
            "target_base": None if self.aim is None else self.aim.id,
            "distance": length_json(scene, self.distance),
            "band": None if self.band is None else self.band["label"],
            "dice": self.dice,
            "in_range": self.in_range,
            "in_arc": self.in_arc,
            "in_sight": self.seen,
            "range": threshold_json(scene, self.threshold),
        }


@dataclass(slots=True)
class Shot:
    """A unit's shot at another (`Europe19c.shot`); allowed when nothing refuses it and some
    base has a target base in range, arc and sight."""

    firer: Unit
    target: Unit
    nearest: geo.Closest
    category: str
    """The target's column of the firing table (`co-col`)."""
    category_why: str
    refusals: list[dict[str, Any]] = field(default_factory=list)
    """Why the firer may not fire at all (cavalry, limbered, pivoted)."""
    weapon: str = ""
    arms: dict[str, Any] = field(default_factory=dict)
    """The weapon's row of the weapon table."""
    bands: list[tuple[dict[str, Any], float]] = field(default_factory=list)
    row: str = ""
    """The firer's row of the firing table (`inf-line-art`)."""
    bases: list[BaseShot] = field(default_factory=list)
    lead: BaseShot | None = None
    """The nearest firing base."""
    dice: int = 0
    need: int = 0
    save: tuple[int | None, str, Cite] | None = None
    """The score a save needs (None: no save), why, and the line."""

    @property
    def allowed(self) -> bool:
        return not self.refusals and self.lead is not None

    @property
    def row_note(self) -> str:
        """`Inf line, Art against Normal`."""
        row, column = FIRING["rows"][self.row], FIRING["columns"][self.category]
        return f"{row['label']} against {column['label']}"


class Face(NamedTuple):
    """The face of a target a charger strikes."""

    name: str
    """`front`, `left-flank`, `right-flank` or `rear`."""
    aspect: geo.Aspect
    margin: float
    """mm from the sector line (infinite in a town: it has no flank or rear)."""


@dataclass(frozen=True, slots=True)
class MeleeSide:
    """One side's dice in hand-to-hand: its row and column of the table, then the modifiers."""

    unit: Unit
    row: str
    column: str
    table_dice: int
    cite: Cite
    dice_per_base: int
    roll: Roll

    def as_json(self) -> dict[str, Any]:
        return {
            "unit": self.unit.id,
            "row": self.row,
            "column": self.column,
            "table_dice_per_base": self.table_dice,
            "dice_per_base": self.dice_per_base,
            "bases": len(self.unit.bases),
            "source": str(self.cite),
            "modifiers": [m.as_json() for m in self.roll.modifiers],
            "hits": {
                "distribution": dice_math.as_floats(self.roll.distribution),
                "exact": _exact(self.roll.distribution),
            },
        }

    def describe(self) -> str:
        mods = "".join(f"; {m.value:+g} {m.reason} [{m.cite}]" for m in self.roll.modifiers)
        return (
            f"{self.unit.id}: {self.row} vs {self.column} {self.table_dice} a base "
            f"[{self.cite}]{mods}; {self.roll.describe()} [{CITE['melee_hit']}]"
        )


def _check_enemies(a: Unit, b: Unit) -> None:
    if a.side == b.side:
        raise QuestionError(
            f"{ID}: {a.id!r} and {b.id!r} are both on side {a.side!r}; "
            "the question needs two opposing units"
        )


def _exact(dist: Sequence[Fraction]) -> list[str]:
    return [str(p) for p in dist]


def _in_kinds(table: Table, base: Base, kinds: frozenset[TerrainKind]) -> list[str]:
    """Ids of the pieces of these kinds holding the base's centre."""
    return [t.id for t in table.centre_in(base) if t.kind in kinds]


def _units_near(table: Table, unit: Unit, reach: float) -> list[Unit]:
    """The units at most `reach` (mm) from `unit` edge to edge, itself too, in the scene's order:
    the pairs `suggest` looks at."""
    gaps = table.unit_gaps()[table.unit_row(unit)]
    return [table.scene.units[k] for k in np.flatnonzero(gaps <= reach).tolist()]


def _done_moving(unit: Unit) -> bool:
    """The unit charged (its move to contact, line 38) or moved this turn."""
    return flag(unit, "moved") or flag(unit, "charged")


# Firing


def _target_column(unit: Unit) -> tuple[str, str]:
    """The firing-table column a target falls in (lines 82-89), and why."""
    kind, formation = kind_of(unit), formation_of(unit)
    if kind == "cavalry":
        return "cav", "cavalry are the Cav column"
    if kind == "dragoons":
        return "normal", "dragoons are Normal"
    if kind == "skirmishers":
        return "dispersed", "skirmishers are Dispersed"
    if kind == "artillery":
        if formation == "limbered":
            return "normal", "limbered artillery is Normal"
        return "dispersed", "unlimbered artillery is Dispersed"
    order = order_of(unit)
    if formation == "column":
        if order == "close":
            return "co-col", "close order infantry in column are the CO If Col column"
        return "normal", "loose order infantry in column are Normal"
    if order == "close":
        return "normal", "close order infantry in line are Normal"
    return "dispersed", "loose order infantry in line are Dispersed"


def _firer_row(kind: str, formation: str | None) -> str:
    """The firing-table row of a firer (lines 83-85)."""
    if kind in ("skirmishers", "dragoons"):
        return "sk-dgns"
    if kind == "infantry" and formation == "column":
        return "infantry-col"
    return "inf-line-art"


def _firer_reach(unit: Unit) -> float | None:
    """The longest range (mm) of a unit that may fire and has not fired this turn."""
    kind = kind_of(unit)
    if kind == "cavalry" or formation_of(unit) == "limbered":
        return None
    if (kind == "artillery" and flag(unit, "pivoted")) or flag(unit, "fired"):
        return None
    return bands_of(weapon_of(unit, kind)[1], kind)[-1][1]


def _why_no_shot(shots: Sequence[BaseShot]) -> dict[str, Any]:
    if not any(s.in_range for s in shots):
        return reason("out of range", CITE["weapons"])
    if not any(s.in_arc for s in shots):
        why = "no base of the target within 45 degrees of a firing base's front"
        return reason(why, CITE["arc"])
    return reason("no line of sight from any base in range and arc", CITE["level_fire"])


def _save(
    table: Table, weapon: dict[str, Any], target: Unit, aimed: Base
) -> tuple[int | None, str, Cite]:
    """The saving roll (lines 91-96): the target's terrain, the weapon, the target formation."""
    woods = _in_kinds(table, aimed, WOODS_TOWNS)
    terrain = SAVES["terrain"]["woods-towns" if woods else "open"]
    column = "all-else"
    if weapon.get("breech_loader", False):
        spread = kind_of(target) == "skirmishers" or formation_of(target) in ("line", "unlimbered")
        column = "sk-ln" if spread else "dgns-col"
    where = f"{aimed.id} stands in {woods[0]}" if woods else f"{aimed.id} stands in the open"
    label = SAVES["columns"][column]["label"]
    return terrain["need"].get(column), f"{where}, {label}", terrain["cite"]


# Charging and moving


def _face(table: Table, attacker: Base, target: Base) -> Face:
    """Which face of `target` the attacker stands against; no flank or rear in a town."""
    if _in_kinds(table, target, TOWNS):
        return Face("front", geo.Aspect.FRONT, math.inf)
    reading = geo.aspect(attacker, target)
    if reading.aspect is geo.Aspect.FLANK:
        across = float(geo.to_local(target, (attacker.x, attacker.y))[0])
        side = "right-flank" if across > 0 else "left-flank"
        return Face(side, reading.aspect, reading.margin)
    return Face(reading.aspect.value, reading.aspect, reading.margin)


def _face_rivals(table: Table, attacker: Unit, target: Unit, face: str) -> list[str]:
    """Other units of the attacker's side in contact with the same face of the target."""
    out = []
    for other in _units_near(table, target, 2 * table.most_uncertain + geo.EPS):
        if other.side != attacker.side or other is attacker:
            continue
        near = table.unit_distance(other, target)
        if in_contact(contact(table, near)) and _face(table, near.a, near.b).name == face:
            out.append(other.id)
    return out


def _standing_column(table: Table, unit: Unit) -> tuple[str, str]:
    """The slowest movement column of the terrain the unit's bases stand in (open if none),
    and why: woods and towns, then streams (a bridge negates the stream, line 50)."""
    woods: list[str] = []
    streams: list[str] = []
    for base in unit.bases:
        kinds = {s.terrain.kind: s.terrain.id for s in table.standing(base)}
        woods += [i for k, i in kinds.items() if k in WOODS_TOWNS]
        if TerrainKind.BRIDGE not in kinds:
            streams += [i for k, i in kinds.items() if k in STREAMS]
    if woods:
        return "woods-towns", f"stands in {', '.join(sorted(set(woods)))}"
    if streams:
        return "stream", f"stands in {', '.join(sorted(set(streams)))}"
    return "open", "stands in the open"


def _road_check(table: Table, unit: Unit) -> tuple[bool, str, Any] | None:
    """Whether the road rate applies (line 52); None when the unit is not on a road."""
    if not all(_in_kinds(table, b, ROADS) for b in unit.bases):
        return None
    enemies = [b for u in table.scene.units if u.side != unit.side for b in u.bases]
    if not enemies:
        return True, "every base is on the road and no enemy is on the table", None
    near = table.closest(unit.bases, enemies)
    limit = NUMBERS["road_enemy_cm"]
    t = Threshold(near.distance, limit * MM_PER_CM, table.uncertainty(near.a, near.b))
    far = near.distance >= t.limit
    text = (
        f"nearest enemy {near.b.id} is {shown(table.scene, near.distance)} away, "
        + ("at least" if far else "under")
        + f" {limit} cm"
        + (" (too close to call)" if t.too_close_to_call else "")
    )
    return far, text, threshold_json(table.scene, t)


def _charge_allowance(table: Table, attacker: Unit, target: Unit) -> tuple[float | None, str, str]:
    """The move (mm) a charge may use: the slower terrain of attacker and target (never road)."""
    row = MOVE_ROWS[move_row(attacker)]
    own, _ = _standing_column(table, attacker)
    theirs, _ = _standing_column(table, target)
    order = ("open", "stream", "woods-towns")
    column = max(own, theirs, key=order.index)
    cm = row["cm"].get(column)
    if cm is None:
        return None, column, f"{row['label']} may not move in {column} (N/A)"
    return cm * MM_PER_CM, column, ""


# Hand-to-hand


def _melee_side(
    table: Table, unit: Unit, enemy: Unit, base: Base, enemy_base: Base, charging: bool, face: Face
) -> MeleeSide:
    """One side's dice: the table row and column, then the per-base modifiers (lines 114-115)."""
    kind = kind_of(unit)
    if kind == "cavalry":
        row_key = "cavalry"
    elif kind in ("skirmishers", "artillery"):
        row_key = "skirmishers-artillery"
    else:
        row_key = f"{'charging' if charging else 'defending'}-{kind}"
    column = _melee_column(enemy)
    row = MELEE["rows"][row_key]
    per_base = row["dice"].get(column)
    if per_base is None:
        raise QuestionError(
            f"{ID}: {unit.id!r} ({row['label']}) against {enemy.id!r} "
            f"({MELEE['columns'][column]}) is '-' on the hand-to-hand table "
            f"({row['cite']}): that combat cannot happen (see the charge table, lines 27-32)"
        )
    mods: list[Modifier] = []
    if charging and face.aspect is not geo.Aspect.FRONT:
        mods.append(Modifier(1, f"attacking the {face.name}", CITE["flank"]))
    if not charging and face.aspect is geo.Aspect.FRONT:
        river = _river_between(table, enemy_base, base)
        if river:
            why = f"defending the bank of {river} frontally"
            mods.append(Modifier(1, why, CITE["riverbank"]))
    hill = _in_kinds(table, base, frozenset({TerrainKind.HILL}))
    if hill and not _in_kinds(table, enemy_base, frozenset({TerrainKind.HILL})):
        mods.append(Modifier(1, f"on higher ground ({hill[0]})", CITE["higher"]))
    if kind == "cavalry" and kind_of(enemy) == "infantry" and order_of(enemy) == "close":
        why = "cavalry against close order infantry"
        mods.append(Modifier(-1, why, CITE["cavalry_vs_close_order"]))
    dice_per_base = max(0, per_base + int(sum(m.value for m in mods)))
    roll = Roll.success_roll(
        f"hits by {unit.id}",
        dice_per_base * len(unit.bases),
        6,
        NUMBERS["melee_hit_need"],
        mods,
        CITE["melee_hit"],
        note=f"{len(unit.bases)} bases x {dice_per_base}",
    )
    label = MELEE["columns"][column]
    return MeleeSide(unit, row["label"], label, per_base, row["cite"], dice_per_base, roll)


def _melee_column(unit: Unit) -> str:
    kind = kind_of(unit)
    if kind == "infantry":
        return f"infantry-{formation_of(unit)}"
    return "skirmishers-artillery" if kind in ("skirmishers", "artillery") else kind


def _loser_fate(unit: Unit) -> str:
    if kind_of(unit) == "artillery":
        return f"is eliminated ({CITE['artillery_eliminated']})"
    return (
        f"retreats {NUMBERS['retreat_cm']} cm facing the enemy, eliminated if the retreat is "
        f"blocked ({CITE['blocked']})"
    )


def _river_between(table: Table, attacker: Base, defender: Base) -> str | None:
    """A stream or river the line between the two centres crosses, if any."""
    a, b = (attacker.x, attacker.y), (defender.x, defender.y)
    for piece in table.scene.terrain:
        if piece.kind in STREAMS:
            obstacle = geo.Obstacle(piece.id, np.asarray(piece.polygon, dtype=float))
            if geo.length_inside(a, b, obstacle)[0] > geo.EPS:
                return piece.id
    return None
