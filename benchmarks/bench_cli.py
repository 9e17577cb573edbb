"""How fast the command line answers one question, against starting Python with numpy.

Run: `.venv/bin/python -m benchmarks.bench_cli [--runs 9] [--json]`

Times, in one run on the same machine, wall clock from start to exit of a fresh interpreter:
- the baseline: `python -c "import numpy"`;
- `umpire resolve examples/skirmish.json measure rifles zouaves` (as `python -m webui.cli`, what
  the `umpire` script runs).
The two are run in turn, `--runs` times each after one warm-up of each (which also writes the
bytecode an installed package has), and the medians and their ratio are printed with the load
average. Nothing here is asserted by the test suite (tests/test_cli.py checks what `umpire
resolve` imports instead).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BASELINE = [sys.executable, "-c", "import numpy"]
QUESTION = [
    sys.executable,
    "-m",
    "webui.cli",
    "resolve",
    str(ROOT / "examples" / "skirmish.json"),
    "measure",
    "rifles",
    "zouaves",
]


def wall_s(command: list[str], env: dict[str, str]) -> float:
    """Seconds from starting `command` to its exit (its output thrown away)."""
    t0 = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()

    # As installed: bytecode written (a pip install compiles it), as numpy's already is.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    wall_s(BASELINE, env)
    wall_s(QUESTION, env)
    baseline, question = [], []
    for _ in range(opts.runs):
        baseline.append(wall_s(BASELINE, env))
        question.append(wall_s(QUESTION, env))
    report: dict[str, Any] = {
        "runs": opts.runs,
        "load_average": list(os.getloadavg()),
        "import_numpy_s": round(statistics.median(baseline), 3),
        "umpire_resolve_s": round(statistics.median(question), 3),
    }
    report["ratio"] = round(report["umpire_resolve_s"] / report["import_numpy_s"], 2)
    if opts.json:
        print(json.dumps(report, indent=2))
        return
    print(
        "load average {:.2f} {:.2f} {:.2f}; wall clock, median of {} runs each".format(
            *report["load_average"], opts.runs
        )
    )
    numpy_s = report["import_numpy_s"]
    print(f"python -c 'import numpy'                                      {numpy_s:.3f} s")
    print(
        "umpire resolve examples/skirmish.json measure rifles zouaves  "
        f"{report['umpire_resolve_s']:.3f} s  ({report['ratio']}x)"
    )


if __name__ == "__main__":
    main()
