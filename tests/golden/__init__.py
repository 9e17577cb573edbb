"""Golden answers: what every ruleset answers on every example scene, kept in files beside this
module so that a change of answer is a decision that shows in the files' diff.

For each example scene (`examples/*.json`): `suggest` for every phase of its sheet and for all
phases at once, every one-unit action on every unit, and every two-unit action on every ordered
pair of units; a question the rules refuse is kept with its message. One block a question
(`## ACTION ARGS`, then its JSON indented), in a fixed order, so a diff names the questions
whose answer changed and the values that did.

At scale (`scale/`): the every-phase `suggest` of each example tiled across its table to 10, 40
and 120 bases (`benchmarks.bench_rules.tiled_doc`, as the benchmark tiles them), one block for
the answer's own keys, one per suggestion (`## item K: KIND ARGS`) and one for its readable lines.

`python -m tests.golden [RULESET]` writes the files again (after a change of answer that was
meant); `tests/test_golden.py` compares them with what the rules answer now.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.bench_rules import tiled_doc
from rules.engine import get_ruleset, load_scene, read_scene
from rules.errors import UmpireError
from rules.scene import Scene

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
HERE = Path(__file__).resolve().parent

UNIT_ARG_COUNTS: dict[str, dict[str, tuple[int, ...]]] = {
    # How many unit ids each action takes (an action taking further words, such as a nerve
    # test's situation or a game size, is asked with unit ids only).
    "skirmish-19c": {
        "measure": (2,),
        "shoot": (2,),
        "command": (1,),
        "risk": (1,),
        "melee": (2,),
        "move": (1, 2),
        "charge": (2,),
    },
    "sepoys-and-soldiers": {
        "measure": (2,),
        "shoot": (2,),
        "command": (1, 2),
        "nerve": (1,),
        "charge": (2,),
        "melee": (2,),
        "move": (1, 2),
    },
    "colonial-adventure": {
        "measure": (2,),
        "shoot": (2,),
        "melee": (2,),
        "move": (1, 2),
        "morale": (1,),
        "actions": (1,),
        "initiative": (0,),
    },
    "age-of-napoleon": {
        "measure": (2,),
        "shoot": (2,),
        "rocket": (2,),
        "overheat": (1,),
        "move": (1,),
        "melee": (2,),
        "morale": (1,),
    },
    "europe-19c": {
        "measure": (2,),
        "shoot": (2,),
        "command": (1,),
        "charge": (2,),
        "melee": (2,),
        "move": (1,),
        "morale": (1,),
        "formation": (1,),
    },
}


def example_scenes() -> list[Path]:
    """Every example scene, by name."""
    return sorted(EXAMPLES.glob("*.json"))


def golden_path(example: Path) -> Path:
    return HERE / f"{example.stem}.txt"


def questions(scene: Scene) -> Iterator[tuple[str, ...]]:
    """Every question asked of a scene, in a fixed order: `(action, *args)`."""
    ruleset = get_ruleset(scene.ruleset)
    actions = ruleset.actions()
    if "suggest" in actions:
        yield ("suggest",)
        for phase in ruleset.phases:
            yield ("suggest", phase)
    units = [u.id for u in scene.units]
    counts = UNIT_ARG_COUNTS[scene.ruleset]
    missing = sorted(set(actions) - set(counts) - {"suggest"})
    if missing:
        raise AssertionError(f"{scene.ruleset}: golden answers do not know the actions {missing}")
    for action in sorted(counts):
        for n in counts[action]:
            if n == 0:
                yield (action,)
            elif n == 1:
                yield from ((action, u) for u in units)
            else:
                yield from ((action, a, b) for a in units for b in units if a != b)


def answer(scene: Scene, question: tuple[str, ...]) -> dict[str, Any]:
    """The JSON answer to one question, or the rules' refusal."""
    action, *args = question
    try:
        data = get_ruleset(scene.ruleset).resolve(scene, action, args).as_json()
    except UmpireError as error:
        return {"error": str(error)}
    return json.loads(json.dumps(data))


def lines(example: Path) -> list[str]:
    """The golden file's lines for one example scene."""
    scene = load_scene(example)
    # One block a question, its answer indented, so that a diff shows the very values that
    # changed under the question they belong to.
    return [
        f"## {' '.join(q)}\n{json.dumps(answer(scene, q), indent=1, sort_keys=True)}"
        for q in questions(scene)
    ]


SCALES = (10, 40, 120)
"""How many bases the examples are tiled to for the golden answers at scale."""
SCALE = HERE / "scale"


def scale_path(example: Path, bases: int) -> Path:
    return SCALE / f"{example.stem}-{bases}.txt"


def scale_lines(example: Path, bases: int) -> list[str]:
    """The golden blocks of the every-phase `suggest` of an example tiled to `bases` bases."""
    doc = json.loads(example.read_text(encoding="utf-8"))
    scene = read_scene(tiled_doc(doc, bases), f"<{example.stem} x{bases}>")
    answer = get_ruleset(scene.ruleset).resolve(scene, "suggest", [])
    data = json.loads(json.dumps(answer.as_json()))
    items = data.pop("items")
    blocks = [f"## suggest\n{json.dumps(data, indent=1, sort_keys=True)}"]
    blocks += [
        f"## item {k}: {item['kind']} {' '.join(item['args'])}\n"
        f"{json.dumps(item, indent=1, sort_keys=True)}"
        for k, item in enumerate(items, 1)
    ]
    blocks.append("## lines\n" + "\n".join(answer.lines))
    return blocks


def write_all(ruleset: str | None = None) -> None:
    """Write the golden files again: every example's, or only those of one ruleset."""
    SCALE.mkdir(exist_ok=True)
    for example in example_scenes():
        if ruleset is not None and load_scene(example).ruleset != ruleset:
            continue
        blocks = lines(example)
        golden_path(example).write_text("\n".join(blocks) + "\n", encoding="utf-8")
        print(f"{golden_path(example).relative_to(ROOT)}: {len(blocks)} answers")
        for bases in SCALES:
            blocks = scale_lines(example, bases)
            path = scale_path(example, bases)
            path.write_text("\n".join(blocks) + "\n", encoding="utf-8")
            print(f"{path.relative_to(ROOT)}: {len(blocks) - 2} suggestions")
