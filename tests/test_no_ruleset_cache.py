"""No cache under `rules/rulesets/`: a ruleset asks the measuring layer (`rules/measure.py`, the
one per-scene cache, thread-safe) and keeps nothing between questions itself. Read from the
source, so a memo added to a ruleset fails here whichever ruleset it is in."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

RULESETS = Path(__file__).resolve().parent.parent / "rules" / "rulesets"
MEMO_NAMES = {"lru_cache", "cache", "cached_property", "WeakKeyDictionary", "WeakValueDictionary"}
EMPTY_CONTAINERS = {"dict", "list", "set", "defaultdict", "OrderedDict", "deque"}


def memos_in(source: str) -> list[str]:
    """Where `source` keeps something between calls: a memoising decorator or helper, a
    `global` rebinding, or a module- or class-level container created empty (to be filled
    while answering)."""
    found = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name | ast.Attribute):
            name = node.id if isinstance(node, ast.Name) else node.attr
            if name in MEMO_NAMES:
                found.append(f"line {node.lineno}: {name}")
        elif isinstance(node, ast.alias) and node.name.split(".")[-1] in MEMO_NAMES:
            found.append(f"line {node.lineno}: import of {node.name}")
        elif isinstance(node, ast.Global):
            found.append(f"line {node.lineno}: global {', '.join(node.names)}")
    scopes: list[ast.Module | ast.ClassDef] = [tree]
    scopes += [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for scope in scopes:
        for stmt in scope.body:
            value = stmt.value if isinstance(stmt, ast.Assign | ast.AnnAssign) else None
            if value is None:
                continue
            empty_literal = isinstance(value, ast.Dict | ast.List | ast.Set) and not (
                value.keys if isinstance(value, ast.Dict) else value.elts
            )
            empty_call = (
                isinstance(value, ast.Call)
                and isinstance(value.func, ast.Name)
                and value.func.id in EMPTY_CONTAINERS
                and not value.args
            )
            if empty_literal or empty_call:
                found.append(f"line {stmt.lineno}: an empty container filled later")
    return found


def test_the_check_finds_each_kind_of_memo() -> None:
    # Each of these keeps answers between calls; the plain table does not.
    assert memos_in("from functools import lru_cache\n@lru_cache\ndef f(x): return x\n")
    assert memos_in("import functools\n@functools.cache\ndef f(x): return x\n")
    assert memos_in("class A:\n    @property\n    def b(self): return 1\n") == []
    assert memos_in("from functools import cached_property\n")
    assert memos_in("_SEEN = {}\ndef f(k):\n    return _SEEN.setdefault(k, k)\n")
    assert memos_in("_SEEN: dict[str, int] = dict()\n")
    assert memos_in("class R:\n    _memo = {}\n")
    assert memos_in("X = None\ndef f():\n    global X\n    X = 1\n")
    assert memos_in("BANDS = {'short': 30, 'long': 60}\nORDER = ('a', 'b')\n") == []


@pytest.mark.parametrize(
    "path", sorted(RULESETS.rglob("*.py")), ids=lambda p: str(p.relative_to(RULESETS))
)
def test_no_ruleset_keeps_a_cache(path: Path) -> None:
    assert memos_in(path.read_text(encoding="utf-8")) == [], (
        f"{path.relative_to(RULESETS)} keeps answers between questions: ask rules/measure.py"
    )
