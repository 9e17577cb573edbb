"""skirmish-19c: "19th Century rules: QRS" (rules/sheets/000_157c880a83b52d41.txt), in cm.

The mechanics: who may shoot and how well, command, risk factors and the actions table, melee,
movement and charges, what the players' dice change, and what each phase of play asks. The
sheet's tables are in `sheet.toml` (read by `sheet.py`); the attributes read and every reading
of an unclear line are in README.md. Every length, sight line and piece of cover is asked of the
measuring layer (`rules.measure.table_of`), which remembers them; nothing is kept here."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from fractions import Fraction
from functools import partial
from itertools import accumulate
from typing import Any, cast

import numpy as np

from ... import dice as dice_math
from ... import geometry as geo
from ...answer import Modifier, RangeBand, Resolution, Roll, Threshold, length_json, threshold_json
from ...answer import reason_json as reason
from ...engine import Action, Asked, Candidate, Cite, Ruleset
from ...errors import MissingAttribute, QuestionError, accepted
from ...measure import Gap, Table, table_of
from ...scene import Base, Cover, Scene, Terrain, TerrainKind, Unit
from ...state import Change, Kind, Report, count_report, removals
from . import sheet
from .sheet import COMMAND, DATA, MELEE, MOVEMENT, RISK, RULESET, SHOOTING, SIGHT, TO_HIT, cm, say

COMMAND_ROLES = frozenset(COMMAND["roles"])
OFFICER_ROLES = frozenset(RISK["officer_roles"])
HERO = frozenset({"hero"})
COMMAND_OPEN, COMMAND_ENCLOSED = cm(COMMAND["open_cm"]), cm(COMMAND["enclosed_cm"])
LOYAL, DISLOYAL = COMMAND["loyal"], COMMAND["disloyal"]
ENCLOSED = frozenset({TerrainKind.WOODS, TerrainKind.TOWN, TerrainKind.BUILDING})
"""The enclosed terrain of line 99 where the scene does not say (its `enclosed`)."""
Args = Sequence[str]
Reported = Mapping[str, Any]
Weapon = sheet.Weapon
Reports = tuple[Report, ...]
Changes = tuple[Change, ...]
Why = tuple[str, Cite]
"""What a change answers (`melee a b`) and the sheet's line that makes it."""
COVER_COLUMN = {Cover.NONE: "open", Cover.SOFT: "soft cover", Cover.HARD: "hard cover"}
INSIDE = geo.Containment.INSIDE
CLOSE, CLOSE_EDGE = " (too close to call)", " (too close to call against the band edge)"


# --------------------------------------------------------------------------------------------
# Reading a unit


state = sheet.DATA.read
"""A declared attribute (`DATA.fields`): the scene was checked against the fields and given
their start-of-game values when it was read, so a missing one is a description (`regular`,
`bayonet`, `formation`), named as missing (a `MissingAttribute`, gathered with the question's
others)."""


def weapon_of(unit: Unit) -> Weapon:
    return sheet.WEAPONS[state(unit, "weapon")]


def is_command_figure(base: Base) -> bool:
    """A base whose role makes it a command figure, and a player character (lines 84, 99)."""
    return base.role in COMMAND_ROLES


def is_player_character(unit: Unit) -> bool:
    """A group made only of command figures (`is_command_figure`): a PC acting alone."""
    return all(b.role in COMMAND_ROLES for b in unit.bases)


def is_commanded(unit: Unit) -> bool:
    """A PC, or a group under command this turn (line 84)."""
    return is_player_character(unit) or bool(state(unit, "commanded"))


def sides_with_player_characters(scene: Scene) -> set[str]:
    """The sides of side A: those with a command figure (line 84)."""
    return {u.side for u in scene.units if any(is_command_figure(b) for b in u.bases)}


def side_bases(scene: Scene, side: str) -> list[Base]:
    """The bases of a side's groups, in the scene's order."""
    return [b for u in scene.units if u.side == side for b in u.bases]


def comrades(
    scene: Scene, unit: Unit, roles: frozenset[str], qualities: frozenset[str] = frozenset()
) -> list[Base]:
    """The figures of the other groups of the unit's side with one of `roles`, or in a group
    of one of `qualities`, in the scene's order."""
    others = [u for u in scene.units if u.side == unit.side and u.id != unit.id]
    whole = {u.id for u in others if u.get("quality") in qualities} if qualities else ()
    return [b for u in others for b in u.bases if b.role in roles or u.id in whole]


def near_figures(
    table: Table, figures: Sequence[Base], bases: Sequence[Base], limit: float
) -> list[tuple[Base, Threshold]]:
    """Those of `figures` near enough to be within `limit` of the nearest of `bases` or too
    close to call (no two bases' combined uncertainty exceeds twice the largest), in their
    order, with that distance against `limit` (the first of equally near bases): a hero or an
    officer near a group (lines 53, 119, 143)."""
    if not figures:
        return []
    block = table.block(figures, bases)
    gaps, nearest = block.min(axis=1).tolist(), block.argmin(axis=1).tolist()
    near = limit + table.most_off
    return [
        (f, Threshold(d, limit, table.uncertainty(f, bases[j])))
        for f, d, j in zip(figures, gaps, nearest, strict=True)
        if geo.within(d, near)
    ]


def enemies(table: Table, action: str, args: Args, what: str) -> tuple[Unit, Unit]:
    """The groups of the two ids `args` gives (of groups or figures), refused when they are of
    one side (`same-side`: `action` names `what`)."""
    a, b = map(table.unit_of, args)
    return DATA.enemies(a, b, a=args[0], b=args[1], action=action, what=what)


def enemy_gaps(table: Table, unit: Unit) -> list[tuple[Unit, float]]:
    """Each enemy group, in the scene's order, with its shortest edge distance to the unit."""
    row = table.unit_gaps()[table.unit_row(unit)].tolist()
    return [(u, d) for u, d in zip(table.scene.units, row, strict=True) if u.side != unit.side]


def is_difficult(piece: Terrain) -> bool:
    """Difficult going (line 111): as the scene says, else woods, rough ground, streams."""
    flag = piece.attrs.get("difficult")
    return flag if isinstance(flag, bool) else piece.kind in sheet.DIFFICULT_KINDS


def contacts(table: Table, base: Base) -> list[Gap]:
    """The gaps from `base` to each base in base contact with it (`Gap.touching`: touching,
    or a gap inside the measurement's uncertainty), in the scene's order: what `Table.gap` of
    the two bases gives, read off the table's distances directly. No gap is more uncertain
    than twice the largest base's uncertainty: only bases that near are asked."""
    near = table.within(base, table.most_off)
    gaps = (Gap(base, o, table.distance(base, o), table.uncertainty(base, o)) for o in near)
    return [g for g in gaps if g.touching]


def enemy_contacts(table: Table, base: Base, side: str) -> list[Gap]:
    """The gaps to the bases of other sides than `side` in base contact with `base`."""
    return [g for g in contacts(table, base) if table.unit_of(g.b.unit_id).side != side]


class Skirmish19c(Ruleset):
    data = DATA
    title = "19th Century rules: QRS"
    unit = "cm"
    sides_rule = DATA["play"]["sides_rule"]
    terrain_keys = frozenset({"difficult"})
    # Sight (lines 55-63; README.md): every line to the target's base must be clear; figures
    # block, but not within 2 cm of the viewer; woods are seen into 10 cm, and within one wood
    # figures see each other up to 20 cm; a figure in woods, a town or a building shows itself
    # within 10 cm of its edge or when its group fired, and is then seen at D6 x 10 cm at most.
    sight_policy = replace(
        Ruleset.sight_policy,
        bases_block=True,
        shoot_over_within=cm(SIGHT["over_figures_within_cm"]),
        entire_base=True,
        see_into=tuple(  # as every sheet sees into terrain, but woods only 10 cm deep
            (kind, cm(SIGHT["woods_see_into_cm"]) if kind is TerrainKind.WOODS else reach)
            for kind, reach in Ruleset.sight_policy.see_into
        ),
        visibility_within=((TerrainKind.WOODS, cm(SIGHT["woods_visibility_cm"])),),
        hidden_in=frozenset(TerrainKind(k) for k in SIGHT["hidden_in"]),
        hidden_edge=cm(SIGHT["hidden_edge_cm"]),
        hidden_seen_within=6 * cm(SIGHT["spotting_step_cm"]),
        revealed_by="fired",
    )
    sight_rule = SIGHT["entire_base"]
    suggestions_say_their_phase = False

    def side_groups(
        self, scene: Scene, initiative: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Side A: every side with a player character; side B: the others (line 84). The sheet
        dices for no initiative, so `initiative` changes nothing."""
        side_a = sides_with_player_characters(scene)
        every = tuple(dict.fromkeys(u.side for u in scene.units))
        a, b = tuple(s for s in every if s in side_a), tuple(s for s in every if s not in side_a)
        return {"A": a, "B": b, "all": every}

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The weapons table's short, medium and long ranges (lines 10-16); swords have none."""
        weapon = weapon_of(unit)
        return tuple(RangeBand(band, reach, weapon.cite) for band, reach in weapon.bands)

    def actions(self) -> dict[str, Action]:
        mine = ("shoot", "command", "risk", "suggest", "melee", "move", "charge")
        return {**super().actions(), **{name: getattr(self, name) for name in mine}}

    # ----------------------------------------------------------------------------------------
    # Sight, unit against unit (line 55)

    def sighted(
        self, table: Table, unit: Unit, reach: float
    ) -> list[tuple[float, Unit, Base, Base]]:
        """Each enemy group some figure of `unit` sees entirely within `reach`, nearest first
        (equally near ones in the scene's order): the distance, the group, and the nearest
        pair (the unit's figure, the enemy figure; the first figure of equally near ones)."""
        nearest, which = table.nearest_seen(self.sight_policy)
        rows = table.span(unit)
        best = nearest[rows].min(axis=0).tolist()
        viewers = (nearest[rows].argmin(axis=0) + rows.start).tolist()
        groups = [k for k, d in enumerate(best) if d < math.inf and geo.within(d, reach)]
        return [
            (best[k], table.scene.units[k], table.bases[v], table.bases[which[v, k]])
            for k, v in sorted(((k, viewers[k]) for k in groups), key=lambda g: best[g[0]])
        ]

    # ----------------------------------------------------------------------------------------
    # Shooting (lines 24-55, 61)

    def shoot(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`shoot SHOOTER TARGET`: who may fire, the band, cover, the D8s and the damage."""
        shooter_id, target_id = args
        table = table_of(scene)
        shooter, target = enemies(table, "shoot", args, "a shooter and an enemy target")
        weapon, quality = weapon_of(shooter), state(shooter, "quality")
        pc = is_player_character(shooter)
        individual = pc and target_id != target.id  # a PC picks his figure (line 51)
        aimed = table.select(target_id) if individual else target.bases
        data: dict[str, Any] = dict(shooter=shooter_id, target=target_id, weapon=weapon.row)
        data["weapon_source"] = str(weapon.cite)
        nearest = table.gap(shooter.bases, aimed).distance
        no_shot = partial(self._no_shot, scene, data, weapon)
        if not weapon.bands:
            return no_shot(nearest, f"{weapon.row} have no shooting range", weapon.cite)

        # Which figures see a target figure entirely within range, the nearest (line 55).
        reach = weapon.reach
        seeing = self._figures_seeing(table, shooter, target, aimed if individual else None)
        eligible = sorted((s for s in seeing if geo.within(s[0], reach)), key=lambda s: s[0])
        if not eligible and geo.within(nearest, reach):
            return no_shot(nearest, say("unseen"), SIGHT["entire_base"])
        if not eligible:
            return no_shot(nearest, say("beyond", reach=scene.show(reach)), weapon.cite)
        distance, first, aim = eligible[0]
        band = sheet.band_of(weapon, distance)
        edge = sheet.band_threshold(weapon, distance, table.uncertainty(first, aim))
        between = {"shooter": first.id, "target": aim.id}
        data.update(distance=length_json(scene, distance), band=band, between=between)
        data["band_threshold"] = threshold_json(scene, edge)
        said = dict(aim=aim.id, at=scene.show(distance), first=first.id, band=band, row=weapon.row)
        where = say("band", close=CLOSE_EDGE if edge.too_close_to_call else "", **said)
        reasons: list[tuple[str, Cite]] = [(where, weapon.cite)]

        # A figure hidden in terrain is seen only if a D6 x 10 cm reaches it (line 61).
        hidden, spot = table.hiding(self.sight_policy, first, aim), None
        if hidden is not None:
            need, note = sheet.spotting_need(distance), say("spot-note", piece=hidden, **said)
            spot = Roll.success_roll("to spot", 1, 6, need, cite=SIGHT["spotting"], note=note)
            data["spotting"] = spot.as_json()
            reasons.append((say("spot", piece=hidden, need=need, **said), SIGHT["spotting"]))

        # Uncommanded troops only shoot at the nearest enemy they can hit (line 38).
        commanded = is_commanded(shooter)
        others = [] if commanded else self.sighted(table, shooter, reach)
        other = next((s for s in others if s[1].id != target.id), None)  # nearest but target
        if other is not None:
            d_other, group, a, b = other
            t = Threshold(distance, d_other, table.uncertainty(a, b))
            than = "nearer than" if t.within else "further than"
            close = CLOSE if t.too_close_to_call else ""
            said |= dict(target=target.id, other=group.id, other_at=scene.show(d_other))
            why = say("nearest", than=than, close=close, **said)
            judged = threshold_json(scene, t)
            data["nearest"] = dict(other=group.id, threshold=judged, verdict=judged["verdict"])
            if not t.within:
                return no_shot(distance, say("not-nearest", why=why), SHOOTING["nearest_only"])
            reasons.append((why, SHOOTING["nearest_only"]))

        # How many figures shoot (lines 24-36).
        figures = sum(b.figures for _, b, _ in eligible)
        baker = shooter.get("weapon") == "baker-rifle"
        if commanded:
            who = "player character" if pc else "commanded troops"
            if weapon.gunpowder and not state(shooter, "loaded"):
                why = say("loading", who=who, baker=say("non-minie") if baker else "")
                return no_shot(distance, why, SHOOTING["loading"])
            shooters, rule, cite = figures, "all fire", SHOOTING["all_fire"]
            reasons.append((say("all-fire", who=who, figures=figures), cite))
        else:
            how = "moving" if state(shooter, "moved") else "stationary"
            per, cite = (SHOOTING[f"{how}_baker" if baker else how][k] for k in ("per", "cite"))
            shooters, rule = figures // per, f"1 per {per}"  # line 33: "1 per 2 figures"
            troops = "Baker riflemen" if baker else "troops"
            fire = say("some-fire", rule=rule, figures=figures, shooters=shooters)
            reasons.append((f"{how} {troops}: {fire}", cite))
        data["shooters"] = {"figures": figures, "fire": shooters, "rule": rule}
        if shooters == 0 and not commanded:
            return no_shot(distance, "no figure may fire", cite)

        # To hit: one D8 a shooter (lines 40-43), cover from the terrain (`Table.cover`).
        reading = table.cover(self.cover_policy, first, aim)
        need, column = TO_HIT[band][reading.cover.value], COVER_COLUMN[reading.cover]
        why = f" ({'; '.join(reading.reasons)})" if reading.reasons else ""
        to_hit = f"{band} range, {column}{why}: {need}+ on a D8 [{TO_HIT['cite']}]"
        reasons.append((to_hit, TO_HIT[band]["cite"]))

        # Damage: one D6 a hit (lines 45-49); where the hits fall (lines 51-53).
        shot, volley = sheet.volley(shooters, need, band, column, weapon.gunpowder, quality)
        allocation = self._allocation(table, shooter, target, aimed, individual)
        data.update(allowed=True, cover=reading.cover.value, cover_reasons=list(reading.reasons))
        data.update(shot, allocation=allocation)
        data["reasons"] = [reason(r, c) for r, c in reasons]
        spotted = "" if spot is None else f" if spotted ({spot.need}+ on a D6)"
        head = f"{shooter_id} shoots at {target_id} with {weapon.row.lower()}: allowed{spotted}"

        def lines() -> list[str]:
            said = [f"- {r} [{c}]" for r, c in reasons]
            return [head, *said, *volley(), f"- {allocation['summary']}"]

        return self.answer("shoot", data, lines, summary=head)

    def _figures_seeing(
        self, table: Table, shooter: Unit, target: Unit, picked: Sequence[Base] | None
    ) -> list[tuple[float, Base, Base]]:
        """Each figure of the shooting group that sees a figure of the target group (or one the
        PC `picked`) entirely (line 55), with the nearest one it sees (the first of equally
        near ones) and its distance. The group's figures are read off `Table.nearest_seen`
        (a `suggest` judges every enemy pair at once; asking the pairs again costs 15 µs)."""
        if picked is not None:
            seen = table.sight_distances(self.sight_policy, shooter.bases, picked)
            distance, which = seen.min(axis=1), [picked[j] for j in seen.argmin(axis=1).tolist()]
        else:
            nearest, index = table.nearest_seen(self.sight_policy)
            rows, column = table.span(shooter), table.unit_row(target)
            distance = nearest[rows, column]
            which = [table.bases[j] for j in index[rows, column].tolist()]
        seeing = zip(distance.tolist(), shooter.bases, which, strict=True)
        return [(d, f, b) for d, f, b in seeing if d < math.inf]

    def _no_shot(
        self, scene: Scene, data: dict[str, Any], weapon: Weapon, at: float, why: str, cite: Cite
    ) -> Resolution:
        """A shot that may not be taken, with the reason (`at`: the distance measured)."""
        data.setdefault("distance", length_json(scene, at))
        data.setdefault("band", sheet.band_of(weapon, at))
        data.update(allowed=False, rolls=[], reasons=[reason(why, cite)])
        head = f"{data['shooter']} may not shoot at {data['target']}: {why} [{cite}]"
        return self.answer("shoot", data, [head, f"- {scene.show(at)} between the nearest figures"])

    def _allocation(
        self, table: Table, shooter: Unit, target: Unit, aimed: Sequence[Base], individual: bool
    ) -> dict[str, Any]:
        """Where hits land (lines 51-53): the figure a PC picks, else among the nearest 10
        figures of the group and the officers of its side within 5 cm of it."""
        if individual:
            summary = f"a player character picks his target: hits fall on {aimed[0].id}"
            source = str(SHOOTING["pc_targets"])
            return {"figures": [b.id for b in aimed], "summary": summary, "source": source}
        join_within, source = cm(SHOOTING["leaders_join_cm"]), str(SHOOTING["leaders_join"])
        officers = comrades(table.scene, target, OFFICER_ROLES)
        near = [o for o in near_figures(table, officers, target.bases, join_within) if o[1].within]
        pool = [*target.bases, *(officer for officer, _ in near)]
        joined: list[dict[str, Any]] = [
            {"base": o.id, "threshold": threshold_json(table.scene, t), "source": source}
            for o, t in near
        ]
        total, among = sum(b.figures for b in pool), SHOOTING["allocate_among"]
        of = f"the nearest {among} of {total} figures" if total > among else f"the {total} figures"
        summary = f"hits are randomised among {of}" + ("" if total > among else " of the group")
        if joined:
            summary += " (with " + ", ".join(j["base"] for j in joined) + " within 5 cm)"
        # Nearest first (to any shooting figure), ties in the pool's order, until 10 figures.
        nearest = table.block(shooter.bases, pool).min(axis=0).tolist()
        order = sorted(range(len(pool)), key=nearest.__getitem__)
        before = accumulate((pool[k].figures for k in order), initial=0)  # figures before each
        chosen = [pool[k].id for k, n in zip(order, before, strict=False) if n < among]
        source = str(SHOOTING["nearest_ten"])
        return {"figures": chosen, "joined": joined, "summary": summary, "source": source}

    # ----------------------------------------------------------------------------------------
    # Command (lines 84, 93-103)

    def command(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`command LEADER`: who the command figure may command and its activation dice."""
        (leader_id,) = args
        table = table_of(scene)
        unit, leader = self._leader(table, leader_id)
        quality = state(unit, "quality")
        dice, dice_cite = sheet.ACTIVATION[quality]
        here = next((t for t in table.centre_in(leader) if is_enclosed(t)), None)
        radius = COMMAND_ENCLOSED if here else COMMAND_OPEN
        side = side_bases(scene, unit.side)
        limits = self._command_reach(table, [leader], side)[0]
        measured = table.distances[table.index[leader.id], table.rows(side)]
        # Only figures within the limit or near it may be in command or too close to call (no
        # two bases' combined uncertainty exceeds twice the largest).
        inside = geo.within(measured, limits).tolist()
        near_limit = (np.abs(limits - measured) <= table.most_off).tolist()
        in_command: list[str] = []
        close_calls: list[dict[str, Any]] = []
        commanded: dict[str, list[Base]] = {}
        rows = zip(side, measured.tolist(), limits.tolist(), inside, near_limit, strict=True)
        for base, gap, limit, within, near in rows:
            if not (within or near) or (base.unit_id == unit.id and is_command_figure(base)):
                continue  # beyond reach, or the leader's own figures: he commands the others
            if near:  # only these may be too close to call
                t = Threshold(gap, limit, table.uncertainty(leader, base))
                if t.too_close_to_call:
                    close_calls.append({"base": base.id, "threshold": threshold_json(scene, t)})
            if within:
                in_command.append(base.id)
                commanded.setdefault(base.unit_id, []).append(base)

        modifiers = []
        busy = [k for k in ("fired", "loading") if state(unit, k)]
        in_melee = enemy_contacts(table, leader, unit.side)
        if busy or in_melee:
            doing = ["loading or firing"] if busy else []
            doing += [f"in melee with {g.b.id}" for g in in_melee[:1]]
            why = f"{leader.id} is " + " and ".join(doing)
            modifiers.append(Modifier(-1, why, COMMAND["busy"]))
        drummers = [b.id for g in commanded.values() for b in g if b.role in ("drummer", "bugler")]
        if drummers:
            why = f"{drummers[0]} (drummer or bugler) is commanded"
            modifiers.append(Modifier(1, why, COMMAND["drummer"]))
        total_dice = max(0, dice + int(sum(m.value for m in modifiers)))
        points = dice_math.dice_sum(total_dice, 6)

        costs = []
        for uid, bases in commanded.items():
            friend = table.unit_of(uid)
            status, loyal = str(state(friend, "status")), bool(state(friend, "loyal"))
            router = status in COMMAND["routers"]  # the Routers of line 103
            cost = LOYAL if loyal and not router else DISLOYAL
            figures = sum(b.figures for b in bases)
            why = f"{status} (a router)" if router else "loyal" if loyal else "disloyal"
            costs.append(dict(unit=uid, figures=figures, points_each=cost["points"], why=why))
            costs[-1]["source"] = str(cost["cite"])
        cost_all = sum(map(cost_of, costs))
        p_enough = points.p_at_least(cost_all)
        note = f"summed for command points [{COMMAND['points']}]"
        roll = Roll("command points", total_dice, 6, None, (), tuple(modifiers), dice_cite, note)
        stands = f"in enclosed terrain ({here.id})" if here else "in the open"
        radius_reason = f"{leader.id} stands {stands}"
        data: dict[str, Any] = dict(leader=leader_id, leader_base=leader.id)
        data.update(radius=length_json(scene, radius), radius_reason=radius_reason)
        data.update(radius_source=str(COMMAND["distance"]), in_command=in_command)
        data.update(too_close_to_call=close_calls, rolls=[roll.as_json()], costs=costs)
        data.update(points=sheet.count_json(points), cost_all=cost_all)
        data["p_enough_for_all"] = sheet.odds_json(p_enough)
        # The lines say the answer's data, and what it gives only as values.
        said = dict(data, quality=quality, within=scene.show(radius))
        head = say("command-head", **said)

        def lines() -> list[str]:
            more = dict(n=len(in_command), figures=", ".join(in_command) or "none")
            more["mods"] = "".join(say("die", m=m) for m in modifiers)
            more["close_lines"] = "\n".join(say("command-close", **c) for c in close_calls)
            more["cost_lines"] = "\n".join(say("command-cost", **c) for c in costs)
            # No figure too close to call, or no group to activate: that line is left out.
            return [head, *(line for line in DATA.lines("command", **(said | more)) if line)]

        return self.answer("command", data, lines, summary=head)

    def _command_reach(
        self, table: Table, leaders: Sequence[Base], bases: Sequence[Base]
    ) -> geo.Array:
        """(L, B) how far each of the command figures `leaders` commands each of `bases`
        (line 99): 25 cm when either of the two stands in enclosed terrain, else 50 cm."""
        enclosed = table.centres_in([t for t in table.scene.terrain if is_enclosed(t)])
        there = enclosed[table.rows(leaders)][:, None] | enclosed[table.rows(bases)][None, :]
        return np.where(there, COMMAND_ENCLOSED, COMMAND_OPEN)

    def _leader(self, table: Table, leader_id: str) -> tuple[Unit, Base]:
        """The command figure a `command` names: the base, or a unit's first command figure."""
        unit, picked = table.unit_of(leader_id), table.select(leader_id)  # the base, or all
        figures = [b for b in picked if is_command_figure(b)]
        if not figures:
            key, role = "no-leader" if leader_id == unit.id else "not-leader", picked[0].role
            roles = accepted(sorted(COMMAND_ROLES))
            raise DATA.refusal(key, unit=unit.id, base=leader_id, role=role, roles=roles)
        return unit, figures[0]

    # ----------------------------------------------------------------------------------------
    # Risk factors and the actions table (lines 117-197)

    def risk(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`risk UNIT`: the risk factors, the actions-table row and its six outcomes."""
        (unit_id,) = args
        table = table_of(scene)
        unit = table.unit_of(unit_id)
        kind = "cavalry" if state(unit, "type") == "cavalry" else "infantry"
        quality = state(unit, "quality")
        factors: list[dict[str, Any]] = []
        close_calls: list[str] = []

        def add(key: str, times: int = 1, threshold: Threshold | None = None, **said: Any) -> None:
            """A risk factor, its reason the text `risk-KEY` of `[texts]` with `said` in it."""
            factor = DATA["risk_factors"][kind][key]
            text = say(f"risk-{key}", kind=kind, **said)
            factors.append({"value": factor["value"] * times, **reason(text, factor["cite"])})
            if threshold is not None:
                factors[-1]["threshold"] = threshold_json(scene, threshold)
                if threshold.too_close_to_call:
                    factors[-1]["too_close_to_call"] = True
                    close_calls.append(text)

        any_seen, ranged = self._enemy_in_sight(table, unit)
        if not any_seen and not self._friends_retreating_in_sight(table, unit):
            add("no-enemy")
        if kind == "infantry":
            # A hero figure, or a group of heroes, of another group of the side (line 119).
            hero_near = cm(RISK["hero_near_cm"])
            heroes = near_figures(table, comrades(scene, unit, HERO, HERO), unit.bases, hero_near)
            near = [(b, t) for b, t in heroes if t.within]
            if near:
                base, t = min(near, key=lambda h: h[1].measured)
                add("hero", threshold=t, hero=base.id, at=scene.show(t.measured))
            elif any(t.too_close_to_call for _, t in heroes):
                close_calls.append("a hero just beyond 5 cm (too close to call)")
            if state(unit, "regular"):
                add("regulars")
        elif quality in ("veteran", "hero") or any(b.role == "officer" for b in unit.bases):
            add("good", good=f"{quality} troops" if quality != "raw" else "an officer leads it")
        covered = self._entirely_in_cover(table, unit)
        if covered:
            add("cover", reasons="; ".join(covered))
        if ranged is not None:
            enemy, weapon, t = ranged
            at, reach = scene.show(t.measured), scene.show(t.limit)
            add("in-range", threshold=t, enemy=enemy.id, at=at, row=weapon.row.lower(), reach=reach)
            if quality == "raw":
                add("raw", enemy=enemy.id, poor="raw" if kind == "infantry" else "poor")
        losses, wounded = state(unit, "casualties"), state(unit, "wounded")
        given = unit.get("strength") is not None  # else the figures on the table and killed
        strength = state(unit, "strength") if given else unit.figures + losses
        tenths = (10 * (losses + wounded)) // strength if strength else 0
        if tenths:
            add("losses", times=tenths, hurt=losses + wounded, strength=strength, tenths=tenths)
        flank = self._flank_enemy(table, unit) if any_seen else None
        if flank is not None:
            add("flank", flank=flank)
        foot = state(unit, "type") == "infantry"  # not cavalry, nor civilians
        shock = self._shock_cavalry(table, unit) if foot and not covered else None
        # A lone figure or a player character forms no square or circle: it has no formation
        # to read (README.md).
        alone = unit.figures <= 1 or is_player_character(unit)
        if shock and (alone or str(state(unit, "formation")) not in ("square", "circle")):
            how = "a lone figure in no square" if alone else "not in square or circle"
            at = scene.show(shock[1].measured)
            add("shock-cavalry", threshold=shock[1], cavalry=shock[0].id, at=at, how=how)
        status = str(state(unit, "status"))
        if status in ("running", "retreating"):
            add("running", status=status)

        rf = int(sum(f["value"] for f in factors))
        label = sheet.row_label(rf)
        row_cite, cells = sheet.ACTIONS_TABLE[kind][label]
        commanded = is_commanded(unit)
        note = "cross-reference the row with the D6"
        roll = Roll("actions", 1, 6, None, cite=row_cite, note=note)
        data: dict[str, Any] = dict(unit=unit_id, table=kind, risk_factor=rf, factors=factors)
        data.update(row=label, row_source=str(row_cite), roll=roll.as_json())
        data["outcomes"] = [dict(c) for c in cells]
        italics = {"rule": say("italics"), "source": str(RISK["italics"][kind])}
        data.update(italics={"commanded": commanded, **italics}, too_close_to_call=close_calls)
        head = say("risk-head", unit=unit_id, kind=kind, rf=rf, row=label)

        def lines() -> list[str]:
            italic = " (italics" + (": a commanded group may ignore it" if commanded else "") + ")"
            said = [say("factor", **f) for f in factors] or [say("no-factor")]
            said += [say("risk-close", why=c) for c in close_calls]
            said += [say("cell", c=c, italic=italic if c["italic"] else "") for c in cells]
            return [head, *said]

        return self.answer("risk", data, lines, summary=head)

    def _friends_retreating_in_sight(self, table: Table, unit: Unit) -> bool:
        """Whether the unit sees a figure of a running, retreating or routing group of its
        side (line 117)."""
        return any(
            state(f, "status") in ("running", "retreating", "routing")
            and (table.sight_distances(self.sight_policy, unit.bases, f.bases) < math.inf).any()
            for f in table.scene.units
            if f.side == unit.side and f.id != unit.id
        )

    def _enemy_in_sight(
        self, table: Table, unit: Unit
    ) -> tuple[bool, tuple[Unit, Weapon, Threshold] | None]:
        """Whether the unit sees an enemy figure (line 117), and the nearest enemy group in
        sight that has the unit within its weapon's long range (line 123), with that distance
        against the range; of equally near groups the first in the scene's order (`sighted`)."""
        # Every enemy's weapon is read, seen or not: `weapon_of` names a missing one, or a word
        # the sheet does not know (a scene built in code is not checked as one read is).
        for e in table.scene.units:
            if e.side != unit.side and e.get("weapon") not in sheet.WEAPONS:
                weapon_of(e)
        seen = self.sighted(table, unit, math.inf)
        for d, enemy, a, b in seen:
            weapon = weapon_of(enemy)
            if geo.within(d, weapon.reach):
                return True, (enemy, weapon, Threshold(d, weapon.reach, table.uncertainty(a, b)))
        return bool(seen), None

    def _entirely_in_cover(self, table: Table, unit: Unit) -> list[str]:
        """Why every figure is in cover (line 121): it stands entirely inside terrain that gives
        cover, or is behind a hedge, wall or fence against the nearest enemy figure; nothing
        when one is not."""
        others = [b for u in table.scene.units if u.side != unit.side for b in u.bases]
        # Each figure's nearest enemy figure, the first of equally near ones.
        nearest = table.block(unit.bases, others).argmin(axis=1).tolist() if others else []
        reasons = []
        for k, base in enumerate(unit.bases):
            # A base entirely in a piece has its centre in it: only those pieces are asked.
            pieces = table.centre_in(base)
            covering = [t for t in pieces if self.cover_policy.cover_of(t) is not Cover.NONE]
            if covering:
                inside = {s.terrain.id for s in table.standing(base) if s.containment is INSIDE}
                covering = [t for t in covering if t.id in inside]
            found = "".join(f"{base.id} stands entirely in {t.id} ({t.kind})" for t in covering[:1])
            if not found and others:
                enemy = others[nearest[k]]
                reading = table.cover(self.cover_policy, enemy, base)
                behind = [r for r in reading.reasons if " is behind " in r]
                if behind:
                    found = f"{behind[0]} against {enemy.id}"
            if not found:
                return []
            reasons.append(found)
        return reasons

    def _flank_enemy(self, table: Table, unit: Unit) -> str | None:
        """The nearest enemy figure in sight standing to the flank or rear of a figure of the
        unit (line 127), of equally near ones the first figure's first."""
        rows = table.span(unit)
        seen = np.array(table.sight_matrix(self.sight_policy)[rows])  # (figures, bases)
        seen[table.aspects[:, rows].T == 0] = math.inf  # where the enemy stands in front
        k = int(seen.argmin())
        if not seen.flat[k] < math.inf:
            return None
        base, enemy = table.bases[rows.start + k // seen.shape[1]], table.bases[k % seen.shape[1]]
        where = geo.aspect(enemy, base)
        close = CLOSE if where.margin <= table.uncertainty(enemy, base) else ""
        return f"{enemy.id} is to the {where.aspect.value} of {base.id}{close}"

    def _shock_cavalry(self, table: Table, unit: Unit) -> tuple[Unit, Threshold] | None:
        """The nearest enemy shock cavalry within 50 cm (line 128): cavalry with swords or
        partisans (lances)."""
        limit, shock = cm(RISK["shock_cavalry_cm"]), RISK["shock_weapons"]
        row = table.unit_row(unit)  # each group's nearest pair of figures, all at once
        gaps, unc = table.unit_gaps()[row].tolist(), table.unit_uncertainties[row].tolist()
        found = [
            (e, Threshold(gaps[k], limit, unc[k]))
            for k, e in enumerate(table.scene.units)
            if e.side != unit.side and e.get("type") == "cavalry" and e.get("weapon") in shock
        ]
        return min((f for f in found if f[1].within), key=lambda f: f[1].measured, default=None)

    # ----------------------------------------------------------------------------------------
    # Melee (lines 67-80)

    def melee(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`melee A B`: the figures in base contact, how they pair off, each fight's odds."""
        a_id, b_id = args
        table = table_of(scene)
        unit_a, unit_b = enemies(table, "melee", args, "two enemy groups")
        bases_a, bases_b = table.select(a_id), table.select(b_id)
        if crowded := [b for b in (*bases_a, *bases_b) if b.figures != 1]:
            raise DATA.refusal("figures", base=crowded[0])
        ids_b = {b.id for b in bases_b}
        touch = [g for a in bases_a for g in contacts(table, a) if g.b.id in ids_b]
        touching = {(g.a.id, g.b.id) for g in touch}
        close = [
            {"a": g.a.id, "b": g.b.id, "threshold": threshold_json(scene, g.contact)}
            for g in touch
            if g.distance > geo.EPS
        ]
        data: dict[str, Any] = dict(a=a_id, b=b_id)
        if not touching:
            near = table.gap(bases_a, bases_b)
            data.update(in_contact=False, distance=length_json(scene, near.distance), fights=[])
            gap = f"{scene.show(near.distance)} apart ({near.a.id} to {near.b.id})"
            return self.answer("melee", data, [f"{a_id} and {b_id} are not in base contact: {gap}"])
        pairs = sheet.match_evenly([b.id for b in bases_a], [b.id for b in bases_b], touching)
        figure = {b.id: (b, unit_a, unit_b) for b in bases_a}
        figure |= {b.id: (b, unit_b, unit_a) for b in bases_b}
        mods = {f: self._melee_modifiers(table, *figure[f]) for pair in pairs for f in pair}
        fights, lines = [], [say("melee", a=a_id, b=b_id)]
        won = {"a": Fraction(0), "b": Fraction(0)}
        for x, y in pairs:
            mx, my = int(sum(m.value for m in mods[x])), int(sum(m.value for m in mods[y]))
            odds = sheet.melee_odds(mx, my)
            won = {k: won[k] + odds[f"{k}_wins"] for k in won}
            fights.append(
                dict(a=x, b=y, a_modifiers=[m.as_json() for m in mods[x]], a_modifier=mx)
                | dict(b_modifiers=[m.as_json() for m in mods[y]], b_modifier=my)
                | {"odds": {k: sheet.odds_json(p) for k, p in odds.items()}}
            )
            lines.append(say("fight", x=x, y=y, mx=mx, my=my, **odds))
            lines += [say("fight-modifier", f=f, m=m) for f in (x, y) for m in mods[f]]
        lines += [say("contact-close", **c) for c in close]
        lines.append(say("melee-rule", back=scene.show(cm(MELEE["back_cm"]))))
        note = "one D6 a figure, modified; compare with the opponent"
        die = Roll("melee", 1, 6, None, cite=MELEE["die"], note=note)
        data.update(in_contact=True, contacts=sorted([list(p) for p in touching]))
        data.update(too_close_to_call=close, fights=fights, rolls=[die.as_json()])
        data["not_engaged"] = [b.id for b in (*bases_a, *bases_b) if b.id not in mods]
        data["expected_fights_won"] = {k: sheet.odds_json(p) for k, p in won.items()}
        back = {"loser": length_json(scene, cm(MELEE["back_cm"])), "source": str(MELEE["back"])}
        data["pull_back"] = back | {"rule": say("pull-back")}
        return self.answer("melee", data, lines)

    def _melee_modifiers(self, table: Table, me: Base, unit: Unit, foe: Unit) -> list[Modifier]:
        """Lines 72-74, for one figure of `unit` against the figures of `foe` it fights."""
        mods = []
        if state(unit, "quality") == "raw":
            mods.append(Modifier(-1, "raw", MELEE["raw"]))
        touching = enemy_contacts(table, me, unit.side)
        if len(touching) > 1:
            why = f"{len(touching)} enemies in base contact"
            mods.append(Modifier(-(len(touching) - 1), why, MELEE["raw"]))
        if me.role == "hero" or unit.get("quality") == "hero":
            mods.append(Modifier(1, "a hero", MELEE["hero"]))
        mine, theirs = self._melee_factor(unit), self._melee_factor(foe)
        if mine > theirs:
            mods.append(Modifier(1, f"melee factor {mine} beats {theirs}", MELEE["factor"]))
        return mods

    def _melee_factor(self, unit: Unit) -> int:
        weapon = weapon_of(unit)
        if weapon.bayonet_melee is not None and state(unit, "bayonet"):
            return weapon.bayonet_melee
        return weapon.melee

    # ----------------------------------------------------------------------------------------
    # Movement, platoons and charges (lines 67-69, 107-111, 143, 186)

    def move(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`move UNIT [TARGET]`: the move allowance, and the cost of moving to TARGET."""
        unit_id, target_id = args[0], (args[1] if len(args) == 2 else None)
        table = table_of(scene)
        unit = table.unit_of(unit_id)
        allowance, why, allowance_cite = self._allowance(unit)
        kind = state(unit, "type")
        data: dict[str, Any] = dict(unit=unit_id, allowance=length_json(scene, allowance))
        data.update(allowance_reason=why, allowance_source=str(allowance_cite))
        lines = [f"{unit_id} may move up to {scene.show(allowance)} ({why}) [{allowance_cite}]"]
        if kind == "cavalry":
            paces = sheet.CAVALRY_PACES
            data["paces"] = [
                {"pace": p, "source": str(c), "from": length_json(scene, lo)}
                | {"to": length_json(scene, hi)}
                for p, lo, hi, c in paces
            ]
            said = ", ".join(f"{p} {scene.show(lo)}-{scene.show(hi)}" for p, lo, hi, _ in paces)
            lines.append(f"- {said} [{paces[0][3]}]")
        standing = sorted({t.id for b in unit.bases for t in table.centre_in(b) if is_difficult(t)})
        data["in_difficult_going"] = standing
        if standing:
            half = scene.show(allowance / 2)
            lines.append(say("difficult-going", pieces=", ".join(standing), half=half))
        if target_id is not None:
            target = table.select(target_id)
            if any(b.unit_id == unit.id for b in target):
                raise QuestionError(f"{RULESET}: {unit_id!r} cannot move to its own {target_id!r}")
            path, mm, t = self._path(table, unit, target, allowance)
            f = {k: scene.show(v) for k, v in mm.items()}
            data.update(path=path, reachable=t.within, threshold=threshold_json(scene, t))
            said = say("path", to=target_id, f=f, a=path["from"], b=path["to"])
            if mm["difficult"] > 0:
                said += say("path-difficult", f=f, hard=", ".join(path["difficult_pieces"]))
            if path["barriers"]:
                said += say("path-barriers", f=f, over=", ".join(path["barriers"]))
            lines.append(said + say("path-cost", f=f, verdict=data["threshold"]["verdict"]))
            if kind == "cavalry":
                pace = next((p for p, _, hi, _ in sheet.CAVALRY_PACES if mm["cost"] <= hi), None)
                data["pace"] = pace
                lines += [f"- at the {pace}"] if pace is not None else []
        data["platoon"] = self._platoon(table, unit)
        lines.append(f"- {data['platoon']['summary']}")
        return self.answer("move", data, lines)

    def _allowance(self, unit: Unit) -> tuple[float, str, Cite]:
        """The most a group may move this turn (lines 107-109), with why."""
        kind = state(unit, "type")
        if kind == "cavalry":
            pace, _, top, pace_cite = sheet.CAVALRY_PACES[-1]
            return top, f"cavalry at the {pace}", pace_cite
        if state(unit, "heavy_armour"):
            armour = MOVEMENT["armour"]
            return cm(armour["cm"]), "foot in heavy armour/clothing", armour["cite"]
        wounded = int(state(unit, "wounded"))
        if kind == "civilians" or wounded:
            why = "civilians" if kind == "civilians" else f"{wounded} wounded figures"
            return cm(MOVEMENT["wounded"]["cm"]), why, MOVEMENT["wounded"]["cite"]
        return cm(MOVEMENT["foot"]["cm"]), "foot figures", MOVEMENT["foot"]["cite"]

    def _path(
        self, table: Table, unit: Unit, target: Sequence[Base], allowance: float
    ) -> tuple[dict[str, Any], dict[str, float], Threshold]:
        """The cost of moving the group's nearest figure straight into contact with `target`:
        the distance, plus the length in difficult going again (at most the whole distance),
        plus a quarter move a barrier crossed (line 111): the path as answers give it, its
        lengths (mm) and its cost against the allowance."""
        near = table.gap(unit.bases, target)
        difficult, hard_going, barriers = 0.0, [], []
        line = ((near.a.x, near.a.y), (near.b.x, near.b.y))
        for piece, inside in table.pieces_on_lines([line])[0]:
            if is_difficult(piece):
                difficult += inside
                hard_going.append(piece.id)
            elif piece.kind in sheet.BARRIER_KINDS:
                barriers.append(piece.id)
        mm = dict(distance=near.distance, difficult=min(difficult, near.distance))
        mm["barrier_cost"] = allowance / 4 * len(barriers)
        mm["cost"] = cost = mm["distance"] + mm["difficult"] + mm["barrier_cost"]
        path: dict[str, Any] = dict(difficult_pieces=hard_going, barriers=barriers)
        path |= {"from": near.a.id, "to": near.b.id}
        path |= {k: length_json(table.scene, v) for k, v in mm.items()}
        return path, mm, Threshold(cost, allowance, near.uncertainty)

    def _platoon(self, table: Table, unit: Unit) -> dict[str, Any]:
        """Lines 143 and 186: a platoon's groups linked by gaps of at most 5 cm, with an officer
        or NCO of the side within 5 cm of one of them, stays in company."""
        rule = MOVEMENT["platoon"]["cavalry" if unit.get("type") == "cavalry" else "infantry"]
        name, source = unit.get("platoon"), str(rule)
        if name is None:
            summary = f"not part of a platoon (give platoon: NAME) [{rule}]"
            return {"platoon": None, "in_company": False, "source": source, "summary": summary}
        scene, limit = table.scene, cm(MOVEMENT["platoon_cm"])
        members = [u for u in scene.units if u.side == unit.side and u.get("platoon") == name]
        # Linked by gaps of at most 5 cm: the members reached from this unit through such gaps
        # (each gap is that of the two groups' nearest figures). Every pair of members whose gap
        # is 5 cm give or take its uncertainty is too close to call, named once.
        rows, ids, n = [table.unit_row(m) for m in members], [m.id for m in members], len(members)
        gaps = table.unit_gaps()[np.ix_(rows, rows)].tolist()
        unc = table.unit_uncertainties[np.ix_(rows, rows)].tolist()
        reached = [ids.index(unit.id)]
        for i in reached:  # the list grows as members are reached
            reached += [j for j in range(n) if j not in reached and geo.within(gaps[i][j], limit)]
        pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
        close = [f"{ids[i]}-{ids[j]}" for i, j in pairs if abs(gaps[i][j] - limit) <= unc[i][j]]
        together = len(reached) == len(members)
        # The first officer or NCO of the side (in the scene's order) within 5 cm of a member,
        # by its first nearest figure.
        roles = MOVEMENT["platoon_roles"]
        officers = [b for b in side_bases(scene, unit.side) if b.role in roles]
        nearby = near_figures(table, officers, [b for m in members for b in m.bases], limit)
        found = [(b, t) for b, t in nearby if t.measured <= limit][:1]
        officer = found[0][0].id if found else None
        close += [b.id for b, t in found if t.too_close_to_call]
        in_company = together and officer is not None
        said = dict(name=name, members=", ".join(ids), rule=rule)
        said["together"] = say("platoon-together" if together else "platoon-apart")
        said["officer"] = say("platoon-officer", officer=officer) if officer else say("no-officer")
        summary = say("platoon", company=say(f"platoon-{in_company}"), **said)
        out = dict(platoon=name, members=ids, together=together)
        out.update(officer=officer, in_company=in_company, too_close_to_call=close)
        return out | {"source": source, "summary": summary}

    def charge(self, scene: Scene, args: Sequence[str]) -> Resolution:
        """`charge A B`: whether A may charge B: who may charge, and B in reach."""
        a_id, b_id = args
        table = table_of(scene)
        unit, target = enemies(table, "charge", args, "a group and an enemy")
        pc, commanded = is_player_character(unit), is_commanded(unit)
        allowance, why, allowance_cite = self._allowance(unit)
        path, mm, t = self._path(table, unit, table.select(b_id), allowance)
        f = {k: scene.show(v) for k, v in mm.items()}
        extra = say("plus-difficult", f=f) if mm["difficult"] else ""
        extra += say("plus-barriers", f=f) if path["barriers"] else ""
        threshold = threshold_json(scene, t)
        reach = dict(reach=scene.show(allowance), why=why, cite=allowance_cite)
        reasons = [say("charge-cost", target=b_id, f=f, extra=extra, threshold=threshold, **reach)]
        allowed, nearest_id = t.within, None
        if commanded:
            who = "a player character" if pc else "commanded troops"
            reasons.append(say("charge-commanded", who=who))
        else:
            nearest_id = min(enemy_gaps(table, unit), key=lambda g: g[1])[0].id
            allowed = allowed and nearest_id == target.id
            reasons.append(say("charge-uncommanded", nearest=nearest_id))
        data: dict[str, Any] = dict(a=a_id, b=b_id, allowed=allowed, commanded=commanded)
        data.update(cost=path["cost"], distance=path["distance"])
        data["reach"] = length_json(scene, allowance)
        data.update(threshold=threshold, nearest_enemy=nearest_id, reasons=reasons)
        data["source"] = str(MELEE["who_charges"])
        head = f"{a_id} {'may' if allowed else 'may not'} charge {b_id}"
        return self.answer("charge", data, [head, *[f"- {r}" for r in reasons]])

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players threw do to the game

    outcomes = ("shoot", "melee", "risk", "command", "charge", "move")

    def _shoot_form(self, asked: Asked) -> Reports:
        """Hits (lines 40-43), then each hit's damage D6 as kills and wounds (lines 45-49),
        and the figures killed, taken off the table (lines 51-53)."""
        data = asked.data
        if not data["allowed"]:
            return ()
        fire, need = int(data["shooters"]["fire"]), int(data["rolls"][0]["need"])
        row = sheet.DAMAGE["gunpowder" if weapon_of(asked.unit(0)).gunpowder else "other"]
        shift = {1: " (+1 hero)", -1: " (-1 raw shooters)"}.get(int(data["damage"]["modifier"]), "")
        target, pool = asked.unit(1), tuple(data["allocation"]["figures"])
        picked = "pc_targets" if len(pool) == 1 and asked.args[1] != target.id else "nearest_ten"
        odds = [Fraction(p["exact"]) for p in data["hits"]["distribution"]]
        label = say("hits-label", need=need, fire=fire)
        reports = [count_report("hits", label, TO_HIT[data["band"]]["cite"], odds)]
        # Kills and wounds are first shown 0, so the form as first shown can be confirmed: a
        # kill takes a figure off, and which one the table decides (hits are randomised, line 51).
        for r in ("kill", "wound"):
            label = say(f"{r}s-label", shift=shift, faces=faces(row, r))
            reports.append(Report(f"{r}s", Kind.COUNT, label, row["cite"], maximum=fire, default=0))
        return (*reports, taken_off("taken_off", target, pool, SHOOTING[picked], fire))

    def _shoot_apply(self, asked: Asked, reported: Reported) -> Changes:
        said = {k: int(reported[k]) for k in ("hits", "kills", "wounds")}
        kills, wounds = said["kills"], said["wounds"]
        shooter, target, scene = asked.unit(0), asked.unit(1), asked.scene
        what, source = " shoot ".join(asked.args), sheet.DAMAGE["gunpowder"]["cite"]
        if kills + wounds > said["hits"]:
            raise DATA.refusal("damage", what=what, source=source, **said)
        off = [scene.base(b) for b in reported["taken_off"]]
        changes = self._losses(scene, target, (kills, wounds), off, (what, source))
        changes.append(Change(shooter.id, "fired", True, "fired this turn", SHOOTING["firing"]))
        return tuple(changes)

    def _losses(
        self, scene: Scene, group: Unit, hurt: tuple[int, int], off: Sequence[Base], why: Why
    ) -> list[Change]:
        """The changes of `hurt` (figures killed, wounded) in `group`, the bases `off` taken
        off the table, `why` (the question, the sheet's line): a base goes when every figure on
        it is killed, so the figures taken off are at most the kills, and the kills left over
        must fit on the bases that stay. An officer of another group who had joined it (line
        53) counts in his own group's casualties; wounds count in the target group (README)."""
        (kills, wounds), (what, source) = hurt, why
        taken, off_ids = sum(b.figures for b in off), {b.id for b in off}
        said = dict(what=what, kills=kills, taken=taken)
        if taken > kills:
            raise DATA.refusal("taken-off", bases=", ".join(b.id for b in off), **said)
        spare = sum(b.figures - 1 for b in group.bases if b.id not in off_ids)
        if kills - taken > spare:
            raise DATA.refusal("more-off", more=kills - taken - spare, **said)
        joined: Counter[str] = Counter()  # officers of other groups (line 53), by group
        for b in (b for b in off if b.unit_id != group.id):
            joined[b.unit_id] += b.figures
        own = kills - joined.total()
        changes = []
        for uid, n in {group.id: own, **joined}.items():
            before = int(state(scene.unit_of(uid), "casualties"))
            changes.append(Change(uid, "casualties", before + n, f"{n} killed", source))
        # The wounded are at most the figures left, whether or not this hurt wounds any more.
        before, left = int(state(group, "wounded")), max(group.figures - own, 0)
        after = min(before + wounds, left)
        note = f"{wounds} wounded" if after == before + wounds else f"at most the {left} left"
        changes.append(Change(group.id, "wounded", after, note, source))
        return [*changes, *removals((b.id for b in off), "killed: taken off the table", source)]

    def _melee_form(self, asked: Asked) -> Reports:
        """Each side's result (line 80), the wounds and kills of the winners' natural 5s and
        6s (line 78), and the figures killed."""
        data = asked.data
        if not data["in_contact"]:
            return ()
        fights, n = data["fights"], len(data["fights"])
        a, b = asked.unit(0), asked.unit(1)
        won = {k: Fraction(v["exact"]) for k, v in data["expected_fights_won"].items()}
        worse = b.id if won["a"] > won["b"] else a.id if won["b"] > won["a"] else "drawn"
        label, sides = say("worse-label", a=a.id, b=b.id), (a.id, b.id, "drawn")
        reports = [Report("worse", Kind.CHOICE, label, MELEE["back"], choices=sides, default=worse)]
        for key, unit in (("a", a), ("b", b)):
            engaged = tuple(dict.fromkeys(f[key] for f in fights))
            for hurt in ("killed", "wounded"):
                label = say(f"{hurt}-label", unit=unit.id)
                name = f"{hurt}_{key}"  # no odds of a count: none shown first
                reports.append(Report(name, Kind.COUNT, label, MELEE["hits"], maximum=n, default=0))
            reports.append(taken_off(f"taken_off_{key}", unit, engaged, MELEE["casualties"], n))
        return tuple(reports)

    def _melee_apply(self, asked: Asked, reported: Reported) -> Changes:
        fights, scene = len(asked.data["fights"]), asked.scene
        hits = sum(int(reported[f"{k}_{s}"]) for k in ("killed", "wounded") for s in "ab")
        what = f"melee {asked.args[0]} {asked.args[1]}"
        if hits > fights:
            raise DATA.refusal("fights", what=what, hits=hits, fights=fights)
        changes: list[Change] = []
        units = {"a": asked.unit(0), "b": asked.unit(1)}
        for key, unit in units.items():
            off = [scene.base(b) for b in reported[f"taken_off_{key}"]]
            kills, wounds = int(reported[f"killed_{key}"]), int(reported[f"wounded_{key}"])
            changes += self._losses(scene, unit, (kills, wounds), off, (what, MELEE["hits"]))
        worse = reported["worse"]
        why = "drawn: both move back 5 cm" if worse == "drawn" else "worse results"
        changes += [
            Change(u.id, "status", "retreating", f"{why}, moved back 5 cm", MELEE["back"])
            for u in units.values()
            if worse in (u.id, "drawn")
        ]
        return tuple(changes)

    def _risk_form(self, asked: Asked) -> Reports:
        """The row of the actions table (the risk factor's) and the D6 thrown on it."""
        data = asked.data
        cite, _ = sheet.ACTIONS_TABLE[data["table"]][data["row"]]
        label = f"the actions-table row (risk factor {data['risk_factor']})"
        return (
            Report("row", Kind.CHOICE, label, cite, choices=sheet.ROW_LABELS, default=data["row"]),
            Report(
                "face", Kind.COUNT, "the D6 thrown on the actions table (1 to 6)", cite, maximum=6
            ),
        )

    def _risk_apply(self, asked: Asked, reported: Reported) -> Changes:
        face = int(reported["face"])
        if face < 1:
            raise QuestionError(f"{RULESET} risk {asked.args[0]}: face is 0; a D6 shows 1 to 6")
        data, row = asked.data, str(reported["row"])
        cite, cells = sheet.ACTIONS_TABLE[data["table"]][row]
        cell = cells[face - 1]
        unit = asked.unit(0)
        before = str(state(unit, "status"))
        after, why = sheet.status_after(cell, row, before, bool(data["italics"]["commanded"]))
        return (Change(unit.id, "status", after, f"D6 {face} on row {row}: {why}", cite),)

    def _command_form(self, asked: Asked) -> Reports:
        """The command points thrown (line 84), and which groups in command distance they
        activate (lines 99-103)."""
        data = asked.data
        if not data["costs"]:
            return ()
        dice, mean = int(data["rolls"][0]["dice"]), Fraction(data["points"]["mean"]["exact"])
        label = say("points-label", dice=dice, leader=data["leader_base"])
        cite = sheet.ACTIVATION[state(asked.unit(0), "quality")][1]
        odds = [Fraction(p["exact"]) for p in data["points"]["distribution"]]
        reports = [count_report("points", label, cite, odds)]
        spent = 0
        for c in data["costs"]:
            spent += cost_of(c)
            label = say("commanded-label", cost=cost_of(c), **c)
            cite = (LOYAL if c["points_each"] == LOYAL["points"] else DISLOYAL)["cite"]
            name = f"command_{c['unit']}"
            reports.append(Report(name, Kind.FLAG, label, cite, default=spent <= mean))
        return tuple(reports)

    def _command_apply(self, asked: Asked, reported: Reported) -> Changes:
        data = asked.data
        points = int(reported.get("points", 0))
        chosen = [c for c in data["costs"] if reported.get(f"command_{c['unit']}") is True]
        cost = sum(map(cost_of, chosen))
        if cost > points:
            raise DATA.refusal("points", leader=asked.args[0], cost=cost, points=points)
        why = f"activated by {data['leader_base']}: {{}} of {points} command points"
        cite = COMMAND["points"]
        return tuple(
            Change(c["unit"], "commanded", True, why.format(cost_of(c)), cite) for c in chosen
        )

    def _charge_apply(self, asked: Asked, reported: Reported) -> Changes:
        """A charge allowed is a move into contact: the group has moved (lines 67-69)."""
        unit, why = asked.unit(0), f"charged {asked.args[1]}"
        return (Change(unit.id, "moved", True, why, MELEE["who_charges"]),)

    def _move_apply(self, asked: Asked, reported: Reported) -> Changes:
        """A move has no dice: the group has moved this turn (line 34: moving troops shoot
        1 per 3 figures)."""
        unit = asked.unit(0)
        _, _, source = self._allowance(unit)
        return (Change(unit.id, "moved", True, "moved this turn", source),)

    # ----------------------------------------------------------------------------------------
    # Suggestions: what each phase of the sequence of play asks (lines 84-89)

    def suggestion_extras(self, scene: Scene, phase: str | None) -> dict[str, Any]:
        sources = {p.name: str(p.cite) for p in self.phase_steps if phase in (None, p.name)}
        return {"side_a": sorted(sides_with_player_characters(scene)), "phase_sources": sources}

    def suggestion_lines(self, data: dict[str, Any], items: list[Any]) -> tuple[str, ...]:
        """Headed by the count of suggestions and who is side A."""
        phase = f" for phase {data['phase']}" if data["phase"] else ""
        head = say("suggest", side_a=", ".join(data["side_a"]) or "none", n=len(items), phase=phase)
        return (head, *(f"- {i.kind} {' '.join(i.args)}: {i.summary}" for i in items))

    def candidates(self, scene: Scene, phase: str) -> Iterator[Candidate]:
        """Command phase: every command figure of side A, the groups of side A out of command,
        each group of side A on the actions table; side A moves and charges; each side
        shoots; side B dices on the actions table, moves and charges; every pair of enemy
        groups with figures in base contact (within the uncertainty), in the scene's order."""
        table, side_a = table_of(scene), sides_with_player_characters(scene)
        acting = [u for u in scene.units if (u.side in side_a) == (phase[-1] != "b")]
        if phase == "command":
            leaders = [b for u in acting for b in u.bases if is_command_figure(b)]
            yield from (Candidate("command", (b.id,)) for b in leaders)
            groups = [u for u in acting if not is_player_character(u)]
            yield from (Candidate("out-of-command", (u.id,)) for u in groups)
            yield from (Candidate("risk", (u.id,)) for u in acting)
        if phase in ("move-a", "actions-b"):
            charges = {u.id: list(self._charges(table, u)) for u in acting}
            # Every charge path of the phase crossed with the terrain in one batch (`_path`).
            paths = [(u.bases, table.select(c.args[1])) for u in acting for c in charges[u.id]]
            gaps = [table.gap(*path) for path in paths]
            table.pieces_on_lines([((g.a.x, g.a.y), (g.b.x, g.b.y)) for g in gaps])
            for u in acting:
                if phase == "actions-b":
                    yield Candidate("risk", (u.id,))
                yield Candidate("move", (u.id,))
                yield from charges[u.id]
        if phase in ("shoot-a", "shoot-b"):
            for u in acting:
                yield from self._shots(table, u)
        if phase == "melee":  # each pair in contact once
            for a, b, _, _ in table.enemy_pairs(scene.units, 0.0, once=True):
                yield Candidate("melee", (a.id, b.id))

    def answer_candidate(self, scene: Scene, candidate: Candidate) -> Resolution | None:
        """The action's answer; a question it cannot answer is listed with why (every missing
        attribute named, as the question asked alone names them)."""
        if candidate.kind == "out-of-command":
            return self._out_of_command(table_of(scene), candidate.args[0])
        try:  # each action is the method of its name
            return cast(Resolution, getattr(self, candidate.kind)(scene, candidate.args))
        except QuestionError as error:
            if isinstance(error, MissingAttribute):
                try:
                    self.resolve(scene, candidate.kind, candidate.args)
                except QuestionError as gathered:
                    error = gathered
            error_data = {"error": str(error)}  # the refusal alone, as the engine lists it
            return Resolution.of(candidate.kind, error_data, [f"cannot answer: {error}"])

    def _shots(self, table: Table, unit: Unit) -> Iterator[Candidate]:
        """Every enemy group in range of a commanded group or PC; the nearest one it sees of any
        other group (line 38)."""
        weapon = sheet.WEAPONS.get(str(unit.get("weapon")))
        if weapon is None or not weapon.bands:
            return
        targets = [e for e, gap in enemy_gaps(table, unit) if geo.within(gap, weapon.reach)]
        if not is_commanded(unit):
            ids = {e.id for e in targets}
            targets = [s[1] for s in self.sighted(table, unit, weapon.reach) if s[1].id in ids][:1]
        for e in targets:
            yield Candidate("shoot", (unit.id, e.id))

    def _charges(self, table: Table, unit: Unit) -> Iterator[Candidate]:
        """The charges a group may make: a player character or commanded group at every enemy
        in reach (line 69), any other group at the nearest enemy, should the actions table
        say "(Charge?)" (line 67). Enemies further than the group's whole move are left out."""
        try:
            allowance, _, _ = self._allowance(unit)
            commanded = is_commanded(unit)
        except QuestionError:
            return  # the group's move names the problem
        gaps = enemy_gaps(table, unit)
        if gaps and not commanded:
            gaps = [min(gaps, key=lambda g: g[1])]
        reach = allowance + table.most_off
        for e, gap in gaps:
            if geo.within(gap, reach):
                yield Candidate("charge", (unit.id, e.id))

    def _out_of_command(self, table: Table, unit_id: str) -> Resolution | None:
        """A group of side A with no figure within command distance of a command figure of
        its side (line 99), None when it has one."""
        unit = table.unit_of(unit_id)
        leaders = [b for b in side_bases(table.scene, unit.side) if is_command_figure(b)]
        reach = self._command_reach(table, leaders, unit.bases)
        if geo.within(table.block(leaders, unit.bases), reach).any():
            return None
        data = {"unit": unit.id, "in_command": False, "source": str(COMMAND["distance"])}
        summary = f"{unit.id} is beyond command distance of every command figure"
        return Resolution.of("out-of-command", data, [summary])


def is_enclosed(terrain: Terrain) -> bool:
    """Whether a piece is enclosed terrain: the scene's word, else by its kind (`ENCLOSED`)."""
    return terrain.kind in ENCLOSED if terrain.enclosed is None else terrain.enclosed


def cost_of(group: Mapping[str, Any]) -> int:
    """The command points a group of a `command` answer's costs takes to activate."""
    return int(group["figures"]) * int(group["points_each"])


def taken_off(name: str, unit: Unit, bases: tuple[str, ...], cite: Cite, most: int) -> Report:
    """Which of `bases` of a unit are killed and taken off the table (at most `most`): a pool,
    not the unit's every base as `rules.state.bases_report` asks (the nearest ten figures, with
    officers of other groups who joined them, line 53; the figures engaged in a melee)."""
    label = f"which figures of {unit.id} are killed and taken off the table"
    return Report(
        name, Kind.BASES, label, cite, maximum=most, unit=unit.id, bases=bases, default=()
    )


def faces(row: Mapping[str, Any], result: str) -> str:
    """The faces of a damage row that read `result`: `5-6`, `6`."""
    shown = [k for k, f in enumerate(row["faces"], 1) if f == result]
    return f"{shown[0]}" if len(shown) == 1 else f"{shown[0]}-{shown[-1]}"
