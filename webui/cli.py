"""The `umpire` command line.

Every bad input ends in one line on stderr and exit status 2, never a traceback: argument
errors through `_Parser.error`, bad files and questions through the packages' `ValueError`
subclasses.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict
from typing import NoReturn

from rules.engine import describe, get_ruleset, ruleset_ids
from rules.errors import UmpireError
from rules.scene import load_scene

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but an error is one line naming the command and pointing at --help."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="umpire",
        description="A camera umpire for miniature wargames: measures the table and suggests "
        "how each rule resolves.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    resolve = commands.add_parser(
        "resolve",
        help="apply a scene's ruleset to one question",
        description="Apply the scene's ruleset to one question, e.g. "
        "'umpire resolve examples/skirmish.json measure rifles zouaves'.",
    )
    resolve.add_argument("scene", metavar="SCENE.json", help="an umpire-scene/1 file")
    resolve.add_argument(
        "action",
        metavar="ACTION",
        help="the question: measure A B (more per ruleset, see 'umpire rulesets')",
    )
    resolve.add_argument("args", metavar="ARGS", nargs="*", help="ids of units or bases")
    resolve.add_argument("--json", action="store_true", help="print JSON instead of sentences")
    resolve.set_defaults(run=_resolve)

    rulesets = commands.add_parser("rulesets", help="list the rulesets and their actions")
    rulesets.add_argument("--json", action="store_true", help="print JSON")
    rulesets.set_defaults(run=_rulesets)
    return parser


def _resolve(opts: argparse.Namespace) -> int:
    scene = load_scene(opts.scene)
    answer = get_ruleset(scene.ruleset).resolve(scene, opts.action, opts.args)
    if opts.json:
        print(json.dumps(answer.as_json(), indent=2))
    else:
        print("\n".join(answer.lines))
    return 0


def _rulesets(opts: argparse.Namespace) -> int:
    infos = [describe(ident) for ident in ruleset_ids()]
    if opts.json:
        print(json.dumps([asdict(info) for info in infos], indent=2))
    else:
        for info in infos:
            measure = "grid boxes" if info.grid else info.unit
            print(f"{info.id:<22} {info.title} ({measure}): {', '.join(info.actions)}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    opts = parser.parse_args(argv)
    try:
        return int(opts.run(opts))
    except UmpireError as exc:
        print(f"umpire {opts.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader (`| head`) left early: not an error of ours, and nothing left to say.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
