"""colonial-adventure: "QRS / COLONIAL ADVENTURE" (rules/sheets/002_9c2296e6290248df.txt), in
inches: the sheet's tables are `sheet.toml`, what a scene must say and how each unclear line is
read `README.md`, and here are the mechanics."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from ... import dice
from ... import geometry as geo
from ...answer import Modifier, RangeBand, Resolution, Roll, length_json, plural, threshold_json
from ...engine import Action, Asked, Candidate, Cite, Ruleset
from ...errors import accepted
from ...measure import Gap, Table, table_of
from ...scene import Base, Cover, Scene, Terrain, TerrainKind, Unit
from ...sheetdata import load_sheet
from ...state import Change, Kind, Report, Scope, bases_report, count_report, removals
from . import odds

SHEET, ID = "002_9c2296e6290248df.txt", "colonial-adventure"
INCH = 25.4
"""mm in one inch: the sheet measures in inches."""
DATA = load_sheet(Path(__file__).with_name("sheet.toml"), SHEET, ID)
"""The sheet's tables (`sheet.toml`), every `{line, quote}` a `Cite`."""

WORDS = {name: tuple(words) for name, words in DATA["words"].items()}
TYPES, CLASSES, GUNS, SMALL_ARMS = (WORDS[k] for k in ("types", "classes", "guns", "small_arms"))
WEAPONS = SMALL_ARMS + GUNS
FORMED, FOOT_FORMATIONS = WORDS["formed"], WORDS["formed"] + WORDS["unformed"]
GUN_FORMATIONS, ROLES = WORDS["gun_formations"], WORDS["roles"]
LEADER_ROLES, NON_FIRING_ROLES = WORDS["leader_roles"], WORDS["non_firing_roles"]
say, refusal, read = DATA.say, DATA.refusal, DATA.read
"""A text of `[texts]` filled in, a refusal of `[refusals]`, a unit's declared field."""
INITIATIVE: Cite = DATA.phases[1].cite
ACTION_PHASES = ("action-1", "action-2")

Cost = Mapping[str, Any]
"""An action of the ACTION COST list (lines 18-33): its name (`action`), how many actions it
costs (`actions`), its `cite`."""
COSTS: Mapping[str, Cost] = DATA["costs"]
PER_TURN, PER_TURN_CITE = DATA["actions"]["per_turn"], DATA["actions"]["cite"]
BY_COMMANDER, RELOAD = frozenset(DATA["actions"]["by_commander"]), DATA["reload"]
MOVEMENT, ARC, FIRE, MELEE = DATA["movement"], DATA["arc"], DATA["fire"], DATA["melee"]
BANDS = {w: DATA["need_tables"]["guns" if w in GUNS else "small_arms"]["bands"] for w in WEAPONS}
"""Each weapon's range bands, from its "Necessary result / range" table."""
NEEDS = {
    weapon: (tuple(None if c == "-" else int(c.split("-")[0]) for c in row["cells"]), row["cite"])
    for weapon, row in DATA["needs"].items()
}
"""Each weapon's lowest D6 face that hits, band by band ("5-6": 5; "-": None, out of reach),
and its row's cite (lines 86-96)."""
HITTING = {w: [b for b, need in zip(BANDS[w], NEEDS[w][0], strict=True) if need] for w in WEAPONS}
"""The bands in which each weapon hits (lines 86-96)."""
REACH = {w: bands[-1].get("high", math.inf) * INCH for w, bands in HITTING.items()}
"""How far (mm) each weapon reaches: its last band's upper edge (the guns' 36"+ has none)."""
HITS, MAN_FROM, LEADER_HIT = DATA["hits"], DATA["horse_or_man"], DATA["leader_hit"]
KILL, SHOCK = Fraction(len(HITS[2]["faces"]), 6), Fraction(len(HITS[1]["faces"]), 6)
"""A hit's chance to kill (5-6) and to give a shock point (3-4) on its 1D6 (lines 104-106)."""
DRAW, DEFEATS, MORALE = DATA["melee_draw"], DATA["melee_defeats"], DATA["morale"]
IN_FORMATION = Modifier(FIRE["formation"], FIRE["formation_why"], FIRE["formation_cite"])
FIGHTERS = Modifier(MELEE["fighters"], "fighters: +1 on the roll", MELEE["fighters_cite"])
EFFECTS = "1-2 no effect, 3-4 shock point, 5-6 kill"
EFFECTS_CITE = f"{HITS[0]['cite']}-{HITS[2]['cite'].line}"
"""Where a hit's effects stand (lines 104-106)."""
EFFECTS_JSON = [
    {"faces": h["faces"], "effect": h["effect"], "source": str(h["cite"])} for h in HITS
]
HIT_EFFECT = Roll("effect of each hit", 1, 6, None, cite=HITS[0]["cite"], note=EFFECTS)
MAN_NOT_HORSE = Roll(
    "man not horse", 1, 6, MAN_FROM["man_from"], cite=MAN_FROM["cite"], note=MAN_FROM["note"]
)
OPEN = (TerrainKind.OPEN, TerrainKind.ROAD, TerrainKind.HILL)
"""What infantry stands on "in the open" (line 134)."""
COVER_WORD = {Cover.NONE: "none", Cover.SOFT: "cover", Cover.HARD: "fortification"}
SIDES = ("attacker", "defender")
"""The sides of `melee ATTACKER DEFENDER`, as its report form names them."""
SPENT = {False: "actions_spent", True: "commander_actions"}
"""Where a unit's actions spent this turn are counted, and its commander's (line 16)."""


Args = Sequence[str]
Reported = Mapping[str, Any]
Changes = tuple[Change, ...]


@dataclass(frozen=True, slots=True)
class Troops:
    """The figures of a unit counted as the sheet counts them."""

    men: int
    """Men remaining: every figure on the table but the unit's `casualties`."""
    firing: int
    """Men that roll a die (not musicians or flag bearers), less the `casualties`."""
    leaders: int
    commanders: int
    leader_bases: tuple[str, ...]
    """The leader and commander bases, for "hits on leaders"."""
    lost: int
    """The unit's `casualties`: men dead whose figures still stand (rank and file)."""


class ColonialAdventure(Ruleset):
    data = DATA
    title = "QRS / COLONIAL ADVENTURE"
    unit = "in"
    sides_rule = say("sides-rule", cite=INITIATIVE)
    terrain_keys = frozenset({"obstacle", "barred"})
    """What the action costs read of terrain (lines 21-23)."""
    cover_policy = replace(
        Ruleset.cover_policy,
        cover=tuple(
            (kind, Cover.HARD if kind is TerrainKind.FORTIFICATION else Cover.SOFT)
            for kind, _ in Ruleset.cover_policy.cover
        ),
    )
    """Every kind that gives cover gives the sheet's "cover" (soft), but a fortification its
    "fortification" (hard): README, Cover."""

    def actions(self) -> dict[str, Action]:
        asked = {"shoot": self.shoot, "melee": self.melee, "move": self.move}
        asked |= {"morale": self.morale, "actions": self.unit_actions}
        asked |= {"initiative": self.initiative, "suggest": self.suggest}
        return {**super().actions(), **asked}

    def range_bands(self, scene: Scene, unit: Unit) -> tuple[RangeBand, ...]:
        """The bands in which the unit's weapon hits (lines 86-96), but the guns' open 36"+."""
        hitting = HITTING[self._weapon(unit)]
        return tuple(
            RangeBand(b["label"], b["high"] * INCH, b["cite"]) for b in hitting if "high" in b
        )

    def side_groups(
        self, scene: Scene, initiative: str | None = None
    ) -> dict[str, tuple[str, ...]]:
        """Every side (`all`), and the same with the initiative winner first (line 8)."""
        sides = tuple(dict.fromkeys(u.side for u in scene.units))
        ordered = sorted(sides, key=lambda s: s != initiative)  # a stable sort: the winner first
        return {"all": sides, "initiative-order": tuple(ordered)}

    # ----------------------------------------------------------------------------------------
    # A unit as the sheet reads it

    def _weapon(self, unit: Unit) -> str:
        """A gun for artillery, small arms for the rest; any other pairing is refused."""
        kind, weapon = read(unit, "type"), unit.get("weapon")
        allowed, other = (GUNS, SMALL_ARMS) if kind == "artillery" else (SMALL_ARMS, GUNS)
        if weapon in other:
            raise refusal(
                "weapon", unit=unit.id, kind=kind, weapon=weapon, allowed=accepted(allowed)
            )
        return read(unit, "weapon", allowed)

    def _left(self, unit: Unit, *, commander: bool = False) -> int:
        """Actions the unit (or the commander with it) has left this turn (line 16)."""
        return max(0, PER_TURN - read(unit, SPENT[commander]))

    def _loaded(self, unit: Unit, weapon: str) -> bool:
        """Whether the weapon is ready: always for one the sheet never reloads."""
        return weapon not in RELOAD or read(unit, "loaded")

    def _formed(self, unit: Unit) -> bool:
        """Whether the unit is "in Formation" (line 84); artillery never is."""
        if read(unit, "type") == "artillery":
            return False
        return read(unit, "formation", FOOT_FORMATIONS) in FORMED

    def _mounted(self, unit: Unit) -> bool:
        """Cavalry, and mounted infantry while mounted, are mounted men."""
        kind = read(unit, "type")
        return read(unit, "mounted") if kind == "mounted-infantry" else kind == "cavalry"

    def _troops(self, unit: Unit) -> Troops:
        for b in unit.bases:
            if b.role is not None and b.role not in ROLES:
                raise refusal("role", base=b.id, unit=unit.id, role=b.role, roles=accepted(ROLES))
        lost = read(unit, "casualties")
        figures = sum(b.figures for b in unit.bases)
        firing = sum(b.figures for b in unit.bases if b.role not in NON_FIRING_ROLES)
        leaders = sum(b.figures for b in unit.bases if b.role in LEADER_ROLES)
        commanders = sum(b.figures for b in unit.bases if b.role == "commander")
        led = tuple(b.id for b in unit.bases if b.role in (*LEADER_ROLES, "commander"))
        return Troops(max(0, figures - lost), max(0, firing - lost), leaders, commanders, led, lost)

    # ----------------------------------------------------------------------------------------
    # Shooting (lines 57-120)

    def shoot(self, scene: Scene, args: Args) -> Resolution:
        """`shoot SHOOTER TARGET`: arc, sight, band, the dice pool, the need, hits and effects."""
        a, b = args
        table = table_of(scene)
        shooter, target = DATA.enemies(table.unit_of(a), table.unit_of(b), asked=(a, b))
        weapon = self._weapon(shooter)
        not_ready = self._not_ready(shooter, weapon)
        fire_bases, target_bases = _firing_bases(table.select(a)), table.select(b)
        near = table.gap(fire_bases, target_bases)
        bands, (needs, row_cite) = BANDS[weapon], NEEDS[weapon]
        # The first band the distance is in: up to its upper edge (the guns' last has none).
        in_band = (geo.within(near.distance, x.get("high", math.inf) * INCH) for x in bands)
        index = next((i for i, yes in enumerate(in_band) if yes), None)
        need = None if index is None else needs[index]
        in_arc = table.any_in_arc(fire_bases, target_bases, ARC["half_angle"])
        sight = table.sight(self.sight_policy, near.a, near.b)
        formed, troops = self._formed(shooter), self._troops(shooter)
        mounted, target_troops = self._mounted(target), self._troops(target)
        cover = table.cover(self.cover_policy, near.a, near.b)
        pool, modifiers = self._fire_dice(shooter, weapon, troops, cover.cover)

        band = "out-of-range" if index is None or need is None else bands[index]["label"]
        edges = [band["high"] for band in bands if "high" in band]
        edge = min(edges, key=lambda e: abs(e * INCH - near.distance))
        threshold = near.against(edge * INCH)
        said: dict[str, Any] = {"target": target.id, "weapon": weapon}
        said |= {"blocked": ", ".join(sight.blocked_by)}
        said |= {"inches": near.distance / INCH, "arc": ARC["cite"], "row": row_cite}
        found = [(not in_arc, "out-of-arc"), (not sight.any, "out-of-sight")]
        found += [(need is None, "out-of-reach"), (pool == 0, "no-dice")]
        reasons = [say(text, **said) for no, text in found if no] + not_ready
        apart = f"{scene.show(near.distance)} between {near.a.id} and {near.b.id}"
        allowed = "" if reasons else ", allowed"
        lines = [f"{shooter.id} ({weapon}) shoots at {target.id}: {apart}, band {band}{allowed}"]
        if threshold.too_close_to_call:
            within = scene.show(near.uncertainty)
            lines.append(f'too close to call: within {within} of the {edge:g}" band edge')
        if cover.cover is not Cover.NONE:
            lines.append(f"target in {COVER_WORD[cover.cover]}: {'; '.join(cover.reasons)}")
        lines += [f"not allowed: {r}" for r in reasons]
        lines.append(f"dice: {pool} ({'; '.join(_mod_text(m) for m in modifiers)})")
        data: dict[str, Any] = {"shooter": a, "target": b}
        data |= {"between": {"a": near.a.id, "b": near.b.id}}
        data |= {"distance": length_json(scene, near.distance), "band": band}
        data["band_source"] = None if index is None else str(bands[index]["cite"])
        data["band_threshold"] = threshold_json(scene, threshold)
        data |= {"allowed": not reasons, "reasons": reasons, "in_arc": in_arc}
        data |= {"in_sight": sight.any, "sight": sight.as_json()}
        data |= {"cover": COVER_WORD[cover.cover], "cover_reasons": list(cover.reasons)}
        data |= {"weapon": weapon, "dice": pool, "modifiers": [m.as_json() for m in modifiers]}
        data["rolls"] = []
        if need is None:
            return self.answer("shoot", data, lines)

        # The hits (lines 98-120): on mounted men each hit is the horse's or the man's, then
        # each hit's 1D6 gives a shock point or kills; only the man's hits kill men.
        final = need - FIRE["formation"] if formed else need
        man = dice.p_at_least(6, MAN_FROM["man_from"]) if mounted else Fraction(1)
        p = dice.p_at_least(6, final)
        note = f'need {need}+ at {band}"' + (", +1 on the roll in formation" if formed else "")
        bonus = (IN_FORMATION,) if formed else ()
        to_hit = Roll("to hit", pool, 6, final, dice.binomial(pool, p), bonus, row_cite, note)
        rolls = [to_hit, MAN_NOT_HORSE, HIT_EFFECT] if mounted else [to_hit, HIT_EFFECT]
        data |= {"need": final, "rolls": [r.as_json() for r in rolls], "effects": EFFECTS_JSON}
        data |= {"hits": odds.counted(pool, p), "shock_points": odds.counted(pool, p * SHOCK)}
        data["kills"] = odds.counted(pool, p * KILL * man)
        lines += [to_hit.describe(), say("hits", **data), say("effects", **data, cite=EFFECTS_CITE)]
        if mounted:
            data["horses_killed"] = odds.counted(pool, p * KILL * (1 - man))
            lines.append(say("horses", **data, unit=target.id, cite=MAN_FROM["cite"]))
        if weapon == "repeating-gun":
            data["jam"] = _chance(odds.jam_chance(pool), FIRE["jam_cite"])
            lines.append(say("jam", **data["jam"]))
        if led := target_troops.leader_bases:
            hit = odds.leader_hit_chance(pool, p * KILL * man, LEADER_HIT["sides"])
            data["leader_hit"] = [_chance(hit, LEADER_HIT["cite"], base=b) for b in led]
            lines.append(say("leader-hit", **data["leader_hit"][0], led=", ".join(led)))
        return self.answer("shoot", data, lines)

    def _not_ready(self, unit: Unit, weapon: str) -> list[str]:
        """Why the unit cannot fire now, whatever its target: its weapon is not loaded (lines
        27-30), its repeating gun jammed (line 31), its gun limbered (line 25), or it has no
        action left (small arms: fire costs 1 of the 2 a turn, lines 16 and 26; guns fire in
        the Artillery Phase, line 7, and spend their actions reloading)."""
        out = []
        if not self._loaded(unit, weapon):
            reload = _cost_said(self._reload_cost(unit, weapon))
            out.append(say("not-loaded", unit=unit.id, **reload))
        if weapon == "repeating-gun" and read(unit, "jammed"):
            out.append(say("jammed", unit=unit.id, **_cost_said(COSTS["fix-jam"])))
        fire = COSTS["fire"]
        if weapon in GUNS:
            if read(unit, "formation", GUN_FORMATIONS) == "limbered":
                out.append(f"{unit.id} is limbered: unlimber it first ({COSTS['limber']['cite']})")
        elif self._left(unit) < fire["actions"]:
            spent = f"{unit.id} has spent its {PER_TURN} actions this turn ({PER_TURN_CITE})"
            out.append(f"{spent}; fire costs {fire['actions']} ({fire['cite']})")
        return out

    def _reload_cost(self, unit: Unit, weapon: str) -> Cost:
        """What reloading the weapon costs: lines 27-30, a gun +1 per two gunners dead (114)."""
        cost = COSTS[RELOAD[weapon]]
        extra = read(unit, "casualties") // DATA["gunners_dead"]["per"]
        return {**cost, "actions": cost["actions"] + extra} if weapon in GUNS and extra else cost

    def _fire_dice(
        self, shooter: Unit, weapon: str, troops: Troops, cover: Cover
    ) -> tuple[int, list[Modifier]]:
        """The firing pool of lines 65-83 and each modifier with its reason."""
        if weapon in GUNS:
            gun = DATA["gun_dice"][weapon]
            mods = [Modifier(gun["dice"], f"{weapon}: {gun['dice']} dice", gun["cite"])]
        else:
            dead = f" ({troops.lost} dead not counted)" if troops.lost else ""
            why = f"{troops.firing} figures firing{dead}, 1 die each"
            mods = [Modifier(troops.firing * FIRE["per_figure"], why, FIRE["per_figure_cite"])]
            cls = read(shooter, "class")
            adj = DATA["class_fire"][cls]
            if "per" in adj:
                why = f"class {cls.upper()}: {adj['dice']:+d} per {adj['per']} men firing"
                mods.append(Modifier(adj["dice"] * (troops.firing // adj["per"]), why, adj["cite"]))
        mods += _leaders(troops, FIRE, "leader figures")
        mods += _shock_dice(read(shooter, "shock"), FIRE, " on the firer")
        shares = [] if cover is Cover.NONE else [COVER_WORD[cover]]  # cover, fortification
        return _by_shares(max(0, int(sum(m.value for m in mods))), mods, FIRE, shares), mods

    # ----------------------------------------------------------------------------------------
    # Close combat (lines 122-150)

    def melee(self, scene: Scene, args: Args) -> Resolution:
        """`melee ATTACKER DEFENDER`: both dice pools, kills and shock, the result table."""
        a, b = args
        table = table_of(scene)
        attacker, defender = DATA.enemies(table.unit_of(a), table.unit_of(b), asked=(a, b))
        near = table.gap(table.select(a), table.select(b))
        contact = near.contact  # within 0: touching or overlapping, certainly in contact
        cover = table.cover(self.cover_policy, near.a, near.b).cover
        att, att_kills, att_line = self._melee_side(table, near, cover, attacker, defender, True)
        dfd, dfd_kills, dfd_line = self._melee_side(table, near, cover, defender, attacker, False)
        # The defender's dead are the attacker's kills: a margin m > 0 means the defender lost
        # m more men than the attacker, so the defender is "defeated by m".
        att_dist, dfd_dist = dice.binomial(*att_kills), dice.binomial(*dfd_kills)
        margin = dict(enumerate(dice.convolve(att_dist, dfd_dist[::-1]), -len(dfd_dist) + 1))
        state = "in" if contact.within else "close" if contact.too_close_to_call else "apart"
        names = {"attacker": attacker.id, "defender": defender.id}
        apart = scene.show(near.distance)
        lines = [say(f"contact-{state}", **names, apart=apart), att_line, dfd_line]
        results = [_result(scene, None, DRAW, margin[0], DRAW["foot_back"] * INCH)]
        lines.append(say("draw", **results[0]))
        for loser, sign in ((defender, 1), (attacker, -1)):
            back_key = "horse_back" if self._mounted(loser) else "foot_back"
            for by, row in enumerate(DEFEATS, start=1):  # the last: "defeated by 4 or more"
                ways = (q for m, q in margin.items() if min(m * sign, len(DEFEATS)) == by)
                p = sum(ways, Fraction(0))
                back = row[back_key] * INCH
                results.append(_result(scene, loser.id, row, p, back))
                lines.append(say("defeat", **results[-1], back=scene.show(back)))
        cite = MELEE["leader_hits_cite"]
        leader_hits = [
            _chance(odds.leader_hit_chance(*kills, LEADER_HIT["sides"]), cite, base=led)
            for kills, enemy in ((att_kills, defender), (dfd_kills, attacker))
            for led in self._troops(enemy).leader_bases
        ]
        lines += [say("melee-leader-hit", **hit, d10=LEADER_HIT["cite"]) for hit in leader_hits]
        data: dict[str, Any] = {"attacker": a, "defender": b}
        data["between"] = {"a": near.a.id, "b": near.b.id}
        data |= {"distance": length_json(scene, near.distance)}
        data |= {"in_contact": not contact.beyond}
        data |= {"contact": threshold_json(scene, contact)}
        aspect = geo.aspect(near.a, near.b).aspect  # where the attacker stands to the defender
        data |= {"aspect": aspect.value, "defender_cover": COVER_WORD[cover]}
        data |= {"sides": [att, dfd], "results": results, "leader_hit": leader_hits}
        return self.answer("melee", data, lines)

    def _melee_side(
        self, table: Table, near: Gap, cover: Cover, unit: Unit, enemy: Unit, attacking: bool
    ) -> tuple[dict[str, Any], tuple[int, Fraction], str]:
        """One side's close combat pool (lines 124-136) and kill roll as JSON, the men it kills,
        and its line. The defender's `cover` counts (hard: a fortification); the sheet gives the
        attacker none."""
        aspect = geo.aspect(near.a, near.b).aspect  # where the attacker stands to the defender
        cls, enemy_cls, troops = read(unit, "class"), read(enemy, "class"), self._troops(unit)
        men = troops.firing * MELEE["per_man"]
        mods = [Modifier(men, f"{troops.firing} men in the fight", MELEE["per_man_cite"])]
        mods += _leaders(troops, MELEE, "officers/leaders")
        for key, field in (("attack_action", "attack_actions"), ("support", "supporting_units")):
            if n := read(unit, field):
                why = f"{n} {field.replace('_', ' ')}"
                mods.append(Modifier(n * MELEE[key], why, MELEE[f"{key}_cite"]))
        if (steps := CLASSES.index(enemy_cls) - CLASSES.index(cls)) > 0:
            why = f"class {cls.upper()} is {steps} status above {enemy_cls.upper()}"
            mods.append(Modifier(steps * MELEE["status"], why, MELEE["status_cite"]))
        mods += _shock_dice(read(unit, "shock"), MELEE, "")
        pool = max(0, int(sum(m.value for m in mods)))
        mounted, enemy_base = self._mounted(unit), near.b if attacking else near.a
        applies = {  # the sheet's percentages, in its order (lines 132-135)
            "fortification": not attacking and cover is Cover.HARD,
            "flank": not attacking and aspect is not geo.Aspect.FRONT,
            "cavalry_open": mounted
            and read(enemy, "type") != "artillery"
            and not self._mounted(enemy)
            and not self._formed(enemy)
            and (not attacking or cover is Cover.NONE)
            and all(s.terrain.kind in OPEN for s in table.standing(enemy_base)),
            "cavalry_fort": mounted and attacking and cover is Cover.HARD,
        }
        shares = [key for key, yes in applies.items() if yes]
        pool = _by_shares(pool, mods, MELEE, shares, aspect=aspect.value)
        fighters = read(unit, "fighters")
        bonus = MELEE["fighters"] if fighters else 0
        kill, shock = MELEE["kill_face"] - bonus, MELEE["shock_face"] - bonus
        p_kill = dice.p_at_least(6, kill)
        kills = odds.counted(pool, p_kill)
        note = f"{kill}+ kills, {shock} a shock point"
        rolled = (*mods, FIGHTERS) if fighters else tuple(mods)
        roll = Roll.success_roll("kill", pool, 6, kill, rolled, MELEE["kill_cite"], note)
        side = {"unit": unit.id, "dice": pool, "modifiers": [m.as_json() for m in mods]}
        side |= {"rolls": [roll.as_json()], "kills": kills, "fighters": fighters}
        side["shock_points"] = odds.counted(pool, Fraction(1, 6))
        reasons = "; ".join(_mod_text(m) for m in mods)
        line = f"{unit.id}: {pool} dice ({reasons}); {note}; expected {kills['mean']:.2f} kills"
        return side, (pool, p_kill), line

    # ----------------------------------------------------------------------------------------
    # Movement and actions (lines 14-55)

    def move(self, scene: Scene, args: Args) -> Resolution:
        """`move UNIT [TERRAIN...]`: Unit Movement, the Action Movement dice and the actions
        spent crossing the named obstacles or entering the named buildings."""
        unit, steps = self._move_steps(scene, args)
        kind, table = read(unit, "type"), table_of(scene)
        # The row of the movement tables the unit moves by (lines 39-51).
        key = "infantry" if kind == "mounted-infantry" and not self._mounted(unit) else kind
        key = read(unit, "formation", GUN_FORMATIONS) if kind == "artillery" else key
        mv, allowance = MOVEMENT[key], MOVEMENT[key]["inches"] * INCH
        rolled = dice.dice_sum(mv["dice"], mv["sides"])
        standing = sorted({s.terrain.id for b in unit.bases for s in table.standing(b)})
        spent, before = sum(c["actions"] for c in steps), read(unit, "actions_spent")
        thrown = {"dice": mv["dice"], "sides": mv["sides"], "source": str(mv["dice_cite"])}
        thrown |= {"distribution_inches": list(rolled.floats), "exact": list(rolled.exact)}
        thrown["mean_inches"] = float(rolled.mean)
        data: dict[str, Any] = {"unit": args[0], "moves_as": key, "stands_in": standing}
        data |= {"allowance": length_json(scene, allowance), "allowance_source": str(mv["cite"])}
        data |= {"action_movement": thrown, "actions": [_cost_json(c) for c in steps]}
        data |= {"actions_spent": spent, "actions_spent_before": before}
        data |= {"actions_per_turn": PER_TURN, "allowed": before + spent <= PER_TURN}
        data["interpenetration"] = str(DATA["interpenetration"]["cite"])
        said = {
            "who": unit.id,
            "reach": scene.show(allowance),
            "cite": PER_TURN_CITE,
        }
        said |= {"earlier": f", {before} spent before" if before else "", "total": before + spent}
        said["costs"] = ", ".join(f"{c['action']} {c['actions']} ({c['cite']})" for c in steps)
        lines = [say("move", **data, **thrown, **said), say("move-actions", **data, **said)]
        if not data["allowed"]:
            lines.append(say("move-not-allowed", **data, **said))
        if standing:
            lines.append(say("stands-in", where=", ".join(standing)))
        lines.append(say("no-passing", **data))
        return self.answer("move", data, lines)

    def _move_steps(self, scene: Scene, args: Args) -> tuple[Unit, list[Cost]]:
        """The unit of `move UNIT [TERRAIN...]` and what its move costs (lines 20-23)."""
        unit = scene.unit_of(args[0])
        return unit, [COSTS["move"], *(self._crossing(scene.terrain_piece(i)) for i in args[1:])]

    def _crossing(self, piece: Terrain) -> Cost:
        """The action cost of crossing a piece of terrain (lines 21-23): its `obstacle` mark, or
        what its kind is (README: Movement)."""
        mark, barred = piece.attrs.get("obstacle"), piece.attrs.get("barred", False)
        if mark is not None and mark not in ("low", "high"):
            raise refusal("obstacle", piece=piece.id, mark=mark)
        if mark is None and piece.kind is TerrainKind.BUILDING and barred is not False:
            raise refusal("barred", piece=piece.id, barred=barred)
        key = f"{mark}-obstacle" if mark else DATA["crossing"].get(str(piece.kind))
        if key is None:
            raise refusal("no-crossing", kind=piece.kind, piece=piece.id)
        return COSTS[key]

    def _costs(self, unit: Unit) -> tuple[list[tuple[str, Cost]], list[str]]:
        """Every action of the ACTION COST list (lines 20-33) open to the unit, by its key in
        `COSTS`, with what it costs this unit; and notes."""
        kind, weapon, troops = read(unit, "type"), self._weapon(unit), self._troops(unit)
        keys = ["move", "low-obstacle", "high-obstacle", "building"]
        keys += {"mounted-infantry": ["mount"], "artillery": ["limber"]}.get(kind, [])
        costs, notes = [(key, COSTS[key]) for key in [*keys, "fire"]], []
        if weapon in RELOAD:
            cost, listed = self._reload_cost(unit, weapon), COSTS[RELOAD[weapon]]
            if cost["actions"] != listed["actions"]:
                dead, extra = read(unit, "casualties"), cost["actions"] - listed["actions"]
                cite = DATA["gunners_dead"]["cite"]
                notes.append(f"{dead} gunners dead: +{extra} to reload ({cite})")
            costs.append((RELOAD[weapon], cost))
        else:
            notes.append(f"the sheet lists no reload cost for a {weapon}")
        keys = ["fix-jam"] if weapon == "repeating-gun" else []
        keys += ["rally", "attack-order"] if troops.commanders else []
        return costs + [(key, COSTS[key]) for key in keys], notes

    def _open_now(self, unit: Unit) -> list[tuple[str, Cost]]:
        """The actions the unit may take now: affordable with the actions it has left, and with
        something to do (a reload when unloaded, a fix when jammed, a shock point to remove).
        Fire is left out: its outcome is the shoot's."""
        weapon = self._weapon(unit)
        return [
            (key, cost)
            for key, cost in self._costs(unit)[0]
            if key != "fire"
            and cost["actions"] <= self._left(unit, commander=key in BY_COMMANDER)
            and not (key.startswith("reload") and self._loaded(unit, weapon))
            and not (key == "fix-jam" and not read(unit, "jammed"))
            and not (key == "rally" and not read(unit, "shock"))
        ]

    def unit_actions(self, scene: Scene, args: Args) -> Resolution:
        """`actions UNIT`: the two actions a turn, what each action open to the unit costs, and
        what it may still do this turn."""
        (ident,) = args
        unit = scene.unit_of(ident)
        costs, notes = self._costs(unit)
        left, open_now = self._left(unit), [cost["action"] for _, cost in self._open_now(unit)]
        data: dict[str, Any] = {"unit": ident, "actions_per_turn": PER_TURN}
        data |= {"source": str(PER_TURN_CITE), "actions_spent": read(unit, "actions_spent")}
        data |= {"actions_left": left, "costs": [_cost_json(c) for _, c in costs]}
        data |= {"open_now": open_now, "notes": notes}
        lines = [say("actions", **data, who=unit.id), *(say("cost", **c) for _, c in costs)]
        if self._troops(unit).commanders:
            data["commander_actions_left"] = self._left(unit, commander=True)
            notes.append(say("commander-actions", **data))
        lines += [*notes, say("open-now", now=", ".join(open_now) or "nothing")]
        return self.answer("actions", data, lines)

    # ----------------------------------------------------------------------------------------
    # Morale (lines 152-161) and initiative (line 8)

    def morale(self, scene: Scene, args: Args) -> Resolution:
        """`morale UNIT`: shock points against men: hold, retire how far, or broken."""
        (ident,) = args
        unit = scene.unit_of(ident)
        shock, men, cls = read(unit, "shock"), self._troops(unit).men, read(unit, "class")
        row = MORALE["retire"][cls]
        retire_cite, broken_cite = MORALE["retire_cite"], MORALE["broken_cite"]
        over, broken = max(0, shock - men), shock >= MORALE["broken_times"] * men
        retire = 0.0 if broken else over * row["inches"] * INCH
        status = "broken" if broken else "retire" if over else "steady"
        data = {"unit": ident, "shock": shock, "men": men, "status": status, "over": over}
        data |= {"retire": length_json(scene, retire)}
        data |= {"sources": [str(retire_cite), str(row["cite"]), str(broken_cite)]}
        said = {"unit": unit.id, "cls": cls.upper(), "retire": scene.show(retire)}
        said |= {"inches": row["inches"], "row_cite": row["cite"], "retire_cite": retire_cite}
        return self.answer("morale", data, [say(status, **data | said, broken_cite=broken_cite)])

    def initiative(self, scene: Scene, args: Args) -> Resolution:
        """`initiative`: each side's 1D6, +1 to the side with more leader and commander figures
        (line 8)."""
        sides = sorted({u.side for u in scene.units})
        if len(sides) != 2:
            named = ", ".join(map(repr, sides)) or "none"
            raise refusal("two-sides", count=len(sides), sides=named)
        leaders = dict.fromkeys(sides, 0)
        for unit in scene.units:
            troops = self._troops(unit)
            leaders[unit.side] += troops.leaders + troops.commanders
        bonus = {s: int(leaders[s] > leaders[o]) for s, o in (sides, sides[::-1])}
        first, second = sides
        # Each of the 36 throws: by how much the first side's total beats the second's.
        beats = [x + bonus[first] - y - bonus[second] for x in range(1, 7) for y in range(1, 7)]
        wins = {first: Fraction(sum(d > 0 for d in beats), 36)}
        wins[second] = Fraction(sum(d < 0 for d in beats), 36)
        tie = Fraction(beats.count(0), 36)
        each = [{"side": s, "leaders": leaders[s], "bonus": bonus[s]} for s in sides]
        for side, s in zip(each, sides, strict=True):
            side |= {"p_win": float(wins[s]), "exact": str(wins[s])}
        data = {"source": str(INITIATIVE), "sides": each, "p_tie": float(tie)}
        data["tie_exact"] = str(tie)
        lines = [say("initiative", **e, plus="+1" if e["bonus"] else "") for e in each]
        lines.append(say("initiative-tie", **data))
        return self.answer("initiative", data, lines)

    # ----------------------------------------------------------------------------------------
    # Suggest: what each phase of the turn sequence asks (lines 5-12)

    def candidates(self, scene: Scene, phase: str) -> Iterable[Candidate]:
        table = table_of(scene)
        if phase == "initiative":
            if len({u.side for u in scene.units}) == 2:
                yield Candidate("initiative", ())
        elif phase == "close-combat":
            # Enemies in base contact (or too close to call); the first is the attacker.
            for unit, enemy, _, _ in table.enemy_pairs(scene.units, 0.0, once=True):
                yield Candidate("melee", (unit.id, enemy.id))
        elif phase == "morale":
            for unit in scene.units:
                if read(unit, "shock") > self._troops(unit).men:
                    yield Candidate("morale", (unit.id,))
        else:
            # Guns fire in the Artillery Phase, the rest in the Action Phases, where each unit
            # with an action left may also move or spend it on another action. Each unit ready to
            # fire shoots at each enemy within its weapon's reach (or too close to call), their
            # sight lines traced at once.
            guns = phase == "artillery"
            shots = [
                (shooter, enemy)
                for shooter, enemy, gap, slack in table.enemy_pairs(scene.units, math.inf)
                if (read(shooter, "type") == "artillery") == guns
                and geo.within(gap, REACH[self._weapon(shooter)] + slack)
                and not self._not_ready(shooter, self._weapon(shooter))
            ]
            nearest = [table.gap(_firing_bases(s.bases), t.bases) for s, t in shots]
            table.sights(self.sight_policy, [(n.a, n.b) for n in nearest])
            yield from (Candidate("shoot", (shooter.id, target.id)) for shooter, target in shots)
            for unit in scene.units if phase in ACTION_PHASES else ():
                if self._left(unit) >= COSTS["move"]["actions"]:
                    yield from (Candidate("move", (unit.id,)), Candidate("actions", (unit.id,)))

    left_off_when_refused = frozenset({"shoot"})  # only the shots the sheet allows are listed

    def suggestion_lines(self, data: dict[str, Any], items: list[Any]) -> tuple[str, ...]:
        wanted = ", ".join(self.phases if data["phase"] is None else (data["phase"],))
        listed = (f"[{i.phase}] {i.kind} {' '.join(i.args)}: {i.summary}" for i in items)
        return (f"{len(items)} resolutions for {wanted}", *listed)

    # ----------------------------------------------------------------------------------------
    # Outcomes: what the dice the players rolled do to the game

    outcomes = ("shoot", "melee", "morale", "actions", "initiative", "move")
    """Each action whose dice change the game: its form (`_ACTION_form`) and what the
    reported dice do (`_ACTION_apply`)."""

    def _add(self, unit: Unit, key: str, n: int, why: str, cite: Cite) -> Change:
        """The change that adds `n` to one of the unit's counts of play."""
        return Change(unit.id, key, read(unit, key) + n, why, cite)

    def _shoot_form(self, asked: Asked) -> tuple[Report, ...]:
        """Hits, kills and shock points of the volley (lines 100-106), the bases taken off, and
        for a repeating gun whether it jammed (line 98)."""
        data = asked.data
        if not data["allowed"]:
            reasons = "; ".join(data["reasons"])
            raise refusal("no-shot", a=data["shooter"], b=data["target"], reasons=reasons)
        man = " the man took (4-6 on the horse-or-man die) and" if "horses_killed" in data else ""
        hits, kills, shock = (data[k]["distribution"] for k in ("hits", "kills", "shock_points"))
        reports = [
            count_report("hits", say("hit-dice", **data), NEEDS[data["weapon"]][1], hits),
            count_report("kills", say("kill-hits", man=man), HITS[2]["cite"], kills),
            count_report("shock", say("shock-hits"), HITS[1]["cite"], shock),
            _removed_report("removed", asked.scene.unit_of(data["target"])),
        ]
        if data["weapon"] == "repeating-gun":
            jam = say("jam-report")
            reports.append(Report("jammed", Kind.FLAG, jam, FIRE["jam_cite"], default=False))
        return tuple(reports)

    def _shoot_apply(self, asked: Asked, reported: Reported) -> Changes:
        shooter, target = asked.unit(0), asked.unit(1)
        weapon = self._weapon(shooter)
        hits, kills, shock = (int(reported[k]) for k in ("hits", "kills", "shock"))
        if kills + shock > hits:
            raise refusal("effects", kills=kills, shock=shock, hits=hits, cites=EFFECTS_CITE)
        why = f"{shock} hits of {shooter.id} rolled 3-4"
        changes = [self._add(target, "shock", shock, why, HITS[1]["cite"])]
        shot = f"shot by {shooter.id}"
        changes += self._losses(target, kills, reported["removed"], shot, HITS[2]["cite"])
        if weapon in RELOAD:
            reload = self._reload_cost(shooter, weapon)
            why = say("fired-unloads", **_cost_said(reload))
            changes.append(Change(shooter.id, "loaded", False, why, reload["cite"]))
        if weapon not in GUNS:
            fire, why = COSTS["fire"], say("fired", **_cost_said(COSTS["fire"]))
            changes.append(self._add(shooter, "actions_spent", fire["actions"], why, fire["cite"]))
        if reported.get("jammed"):
            changes.append(Change(shooter.id, "jammed", True, "more 1s than 6s", FIRE["jam_cite"]))
        return tuple(changes)

    def _losses(self, unit: Unit, killed: int, removed: Args, why: str, cite: Cite) -> list[Change]:
        """The men a unit lost: the bases taken off, and the dead whose figures still stand in
        `casualties`; every base when every man is dead."""
        figures = {b.id: b.figures for b in unit.bases}
        before = read(unit, "casualties")
        lost = before + killed
        if lost >= sum(figures.values()):
            dead = f"{why}: every man of {unit.id} is dead"
            return list(removals(figures, dead, cite))
        taken = sum(figures[b] for b in removed)
        if taken > lost:
            named = ", ".join(removed)
            raise refusal("figures", unit=unit.id, removed=named, taken=taken, lost=lost)
        still = f"{killed} killed ({why}), {lost - taken} of its dead still on the table"
        casualties = Change(unit.id, "casualties", lost - taken, still, cite)
        return [casualties, *removals(removed, f"killed ({why})", cite)]

    def _melee_form(self, asked: Asked) -> tuple[Report, ...]:
        """Each side's kills (6s, or 5-6 for fighters) and shock points (5s, or 4s) on the
        enemy (lines 136-138), and the bases each side takes off."""
        data, scene = asked.data, asked.scene
        a, b = data["attacker"], data["defender"]
        if not data["in_contact"]:
            apart = f"{data['distance']['value']:g} {scene.unit} apart"
            raise refusal("no-contact", a=a, b=b, apart=apart)
        units, reports = (scene.unit_of(a), scene.unit_of(b)), []
        for role, side, unit, enemy in zip(SIDES, data["sides"], units, units[::-1], strict=True):
            kill, shock_cite = side["rolls"][0]["need"], MELEE["shock_face_cite"]
            faces = "6s" if kill == 6 else f"{kill}s and 6s"
            killed = f"{faces} rolled by {unit.id}: men of {enemy.id} killed"
            shocked = f"{kill - 1}s rolled by {unit.id}: shock points on {enemy.id}"
            kills, shock = side["kills"]["distribution"], side["shock_points"]["distribution"]
            reports += [
                count_report(f"{role}_kills", killed, MELEE["kill_cite"], kills),
                count_report(f"{role}_shock", shocked, shock_cite, shock),
            ]
        reports += [_removed_report(f"{r}_removed", u) for r, u in zip(SIDES, units, strict=True)]
        return tuple(reports)

    def _melee_apply(self, asked: Asked, reported: Reported) -> Changes:
        for role, side in zip(SIDES, asked.data["sides"], strict=True):
            kills, shock = int(reported[f"{role}_kills"]), int(reported[f"{role}_shock"])
            if kills + shock > side["dice"]:
                dice = {"unit": side["unit"], "dice": side["dice"], "kills": kills, "shock": shock}
                raise refusal("dice", **dice)
        attacker, defender = asked.unit(0), asked.unit(1)
        margin = int(reported["attacker_kills"]) - int(reported["defender_kills"])
        shocked: list[Change] = []
        losses: list[Change] = []
        for unit, enemy, role, foe, by in (
            (defender, attacker, "defender", "attacker", margin),
            (attacker, defender, "attacker", "defender", -margin),
        ):
            # The enemy's 5s (line 138), then the result (lines 146-150): defeated `by` if > 0.
            shock, cite = int(reported[f"{foe}_shock"]), MELEE["shock_face_cite"]
            why = [f"{shock} shock from {enemy.id}'s dice"]
            if by > 0:
                row = DEFEATS[min(by, len(DEFEATS)) - 1]
                back = row["horse_back" if self._mounted(unit) else "foot_back"]
                extra = shock if row["shock"] == "double" else row["shock"]
                plus = f", +{extra} shock" if extra else ""
                why.append(say("defeated", **row, back=back, plus=plus))
                shock, cite = shock + extra, row["cite"]
            elif by == 0:
                why.append(DRAW["effect"])
            # the attacker's shock listed first
            shocked.insert(0, self._add(unit, "shock", shock, "; ".join(why), cite))
            fight, killed = f"close combat with {enemy.id}", int(reported[f"{foe}_kills"])
            losses += self._losses(
                unit, killed, reported[f"{role}_removed"], fight, MELEE["kill_cite"]
            )
        return (*shocked, *losses)

    def _morale_apply(self, asked: Asked, reported: Reported) -> Changes:
        data, bases = asked.data, asked.unit(0).bases
        if data["status"] != "broken":
            return ()
        why = f"broken: {data['shock']} shock points, at least twice its {data['men']} men"
        return removals([b.id for b in bases], why, MORALE["removed_cite"])

    def _actions_form(self, asked: Asked) -> tuple[Report, ...]:
        """Which action of the ACTION COST list (lines 18-33) the unit takes."""
        unit = asked.unit(0)
        names = tuple(cost["action"] for _, cost in self._open_now(unit))
        if not names:
            left, cite = self._left(unit), PER_TURN_CITE
            raise refusal("no-action", unit=unit.id, left=left, per_turn=PER_TURN, cite=cite)
        cite, label = DATA["actions"]["cost_list"], f"the action {unit.id} takes"
        return (Report("action", Kind.CHOICE, label, cite, choices=names, default=names[0]),)

    def _actions_apply(self, asked: Asked, reported: Reported) -> Changes:
        unit = asked.unit(0)
        chosen = reported["action"]
        key, cost = next((k, c) for k, c in self._open_now(unit) if c["action"] == chosen)
        action, cite, by_commander = cost["action"], cost["cite"], key in BY_COMMANDER
        who = f"{unit.id}'s commander" if by_commander else unit.id
        why = f"{who}: {action}, {plural(cost['actions'], 'action')}"
        changes = [self._add(unit, SPENT[by_commander], cost["actions"], why, cite)]
        does = DATA["does"].get(key, {})
        if "sets" in does:
            changes.append(Change(unit.id, does["sets"], does["to"], action, cite))
        elif "adds" in does:
            why, cite = does.get("why", action), does.get("cite", cite)
            changes.append(self._add(unit, does["adds"], does["by"], why, cite))
        elif key == "mount":
            mounted = read(unit, "mounted")
            now = "dismounts" if mounted else "mounts"
            changes.append(Change(unit.id, "mounted", not mounted, now, cite))
        elif key == "limber":
            now = read(unit, "formation", GUN_FORMATIONS)
            after = "unlimbered" if now == "limbered" else "limbered"
            changes.append(Change(unit.id, "formation", after, after, cite))
        return tuple(changes)

    def _initiative_form(self, asked: Asked) -> tuple[Report, ...]:
        """Each side's 1D6 (line 8); the +1 for more leaders is added here."""
        added = " (its +1 for more leaders is added for you)"
        return tuple(
            Report(f"roll_{s}", Kind.COUNT, f"{s}'s 1D6{added if b else ''}", INITIATIVE, maximum=6)
            for s, b in self._bonus(asked).items()
        )

    def _initiative_apply(self, asked: Asked, reported: Reported) -> Changes:
        bonus = self._bonus(asked)
        faces = {s: int(reported[f"roll_{s}"]) for s in bonus}
        bad = [f"roll_{s} is {faces[s]}" for s in bonus if not 1 <= faces[s] <= 6]
        if bad:
            raise refusal("d6", bad="; ".join(bad))
        totals = {s: faces[s] + bonus[s] for s in bonus}
        said = " against ".join(
            f"{s} {faces[s]}" + (f"+{bonus[s]} = {totals[s]}" if bonus[s] else "") for s in bonus
        )
        first, second = bonus
        if totals[first] == totals[second]:
            raise refusal("tie", said=said)
        winner, why = max(bonus, key=totals.__getitem__), f"won the initiative die roll: {said}"
        return (Change("game", "initiative", winner, why, INITIATIVE, Scope.GAME),)

    def _bonus(self, asked: Asked) -> dict[str, int]:
        """Each side's +1 for more leaders (line 8), as `initiative` answered it."""
        return {s["side"]: s["bonus"] for s in asked.data["sides"]}

    def _move_form(self, asked: Asked) -> tuple[Report, ...]:
        """No dice to report: the move spends its actions (lines 20-23); a move the actions left
        this turn cannot pay for is refused."""
        data = asked.data
        if not data["allowed"]:
            costs = ", ".join(f"{c['action']} {c['cost']}" for c in data["actions"])
            said = {"unit": asked.unit(0).id, "costs": costs, "cite": PER_TURN_CITE}
            after = data["actions_spent_before"] + data["actions_spent"]
            raise refusal("move", **{**data, **said}, after=after)
        return ()

    def _move_apply(self, asked: Asked, reported: Reported) -> Changes:
        unit, steps = self._move_steps(asked.scene, asked.args)
        after = read(unit, "actions_spent") + sum(c["actions"] for c in steps)
        why = ", ".join(f"{c['action']} {plural(c['actions'], 'action')}" for c in steps)
        return (Change(unit.id, "actions_spent", after, why, steps[-1]["cite"]),)


# --------------------------------------------------------------------------------------------
# Helpers


def _firing_bases(bases: Sequence[Base]) -> Sequence[Base]:
    """The bases that fire (line 65: no musician or flag bearer), or all when none would."""
    firing = tuple(b for b in bases if b.role not in NON_FIRING_ROLES)
    return bases if len(firing) in (0, len(bases)) else firing


def _leaders(troops: Troops, table: Mapping[str, Any], leaders: str) -> list[Modifier]:
    """The dice leader and commander figures add (lines 79-80, 126-127)."""
    counts = ((troops.leaders, "leader", leaders), (troops.commanders, "commander", "commander"))
    return [Modifier(n * table[k], f"{n} {what}", table[f"{k}_cite"]) for n, k, what in counts if n]


def _shock_dice(shock: int, table: Mapping[str, Any], on: str) -> list[Modifier]:
    """A die less per whole two shock points (lines 81 and 131)."""
    per, why = table["shock_per_die"], f"{shock} shock points{on}"
    return [Modifier(-(shock // per), why, table["shock_cite"])] if shock >= per else []


def _by_shares(
    pool: int, mods: list[Modifier], table: Mapping[str, Any], shares: Sequence[str], **why: str
) -> int:
    """The pool after the sheet's percentages (`table[KEY_share]`, lines 82-83 and 132-135),
    each of the pool as it then stands, the change rounded up (away from zero); each a modifier
    in `mods`, its reason `table[KEY_why]` (its `{blanks}` filled from `why`)."""
    for key in shares:
        share, reason = Fraction(table[f"{key}_share"]), table[f"{key}_why"].format(**why)
        whole = math.ceil(pool * abs(share))
        change = whole if share > 0 else -whole
        text = f"{reason}: {'+' if share > 0 else ''}{share} of {pool} dice, rounded up"
        mods.append(Modifier(change, text, table[f"{key}_cite"]))
        pool = max(0, pool + change)
    return pool


def _chance(p: Fraction, cite: Cite, **more: Any) -> dict[str, Any]:
    """A chance and where it comes from, for JSON (with `more` keys)."""
    return {**more, "p": float(p), "exact": str(p), "source": str(cite)}


def _result(
    scene: Scene, loser: str | None, row: Mapping[str, Any], p: Fraction, back: float
) -> dict[str, Any]:
    """A row of "Result of Close Combat" with its chance, for JSON."""
    more = {"loser": loser, "result": row["label"], "effect": row["effect"]}
    return _chance(p, row["cite"], **more, thrown_back=length_json(scene, back))


def _removed_report(name: str, unit: Unit) -> Report:
    """Which bases of `unit` the players take off for its men killed (line 120)."""
    return bases_report(name, say("removed", unit=unit.id), LEADER_HIT["cite"], unit)


def _cost_said(cost: Cost) -> dict[str, Any]:
    """An action's cost, as the [texts] name it: `action`, `cite`, `costs` ("2 actions")."""
    return {**cost, "costs": plural(cost["actions"], "action")}


def _cost_json(cost: Cost) -> dict[str, Any]:
    return {"action": cost["action"], "cost": cost["actions"], "source": str(cost["cite"])}


def _mod_text(m: Modifier) -> str:
    return f"{m.value:+g} {m.reason}" + (f" ({m.cite})" if m.cite else "")
