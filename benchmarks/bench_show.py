"""How soon `/show` says what a player just confirmed (issue 15: within 1 s).

Run: `python -m benchmarks.bench_show [--confirms 20] [--every 1.5] [--json]`

The built-in demo as `umpire serve --demo` starts it (synthetic camera, 1280x720, 10 frames a
second, the real tracker) behind the real app on `umpire serve`'s server. Debian's Chromium
(`/usr/bin/chromium`, as the browser tests use it) opens `/show` at 1920x1080. A player then
asks for a measurement and confirms it, `--confirms` times, every `--every` seconds, by the API
as the table page does; the two units measured alternate so that each ruling reads differently.
For each confirm: the time from the server's 201 to the moment `/show`'s ruling text changed to
it (a MutationObserver's clock in the page against this process's: the same machine's clock).

Printed: median, p95 and worst, the share within 1 s, and the load average (under load every
figure is pessimistic). Nothing is asserted; the browser test `tests/browser/test_show.py`
proves the ruling arrives by the server's push, in the same document.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import sync_playwright

from webui.live import open_live

from .serving import post, serve

CHROMIUM = "/usr/bin/chromium"
WATCH_RULING = """() => {
    window.rulingChanges = [];
    const ruling = document.getElementById("show-ruling");
    new MutationObserver(() => window.rulingChanges.push([Date.now(), ruling.textContent]))
        .observe(ruling, {childList: true, characterData: true, subtree: true});
}"""


def run(confirms: int, every: float) -> dict[str, Any]:
    load_before = os.getloadavg()
    live = open_live(demo="skirmish-19c", tracker_process=True)
    units = [u.id for u in live.game.units]
    pairs = [(units[0], units[-1]), (units[-1], units[0])]
    took: list[float] = []
    missed = 0
    with (
        tempfile.TemporaryDirectory() as data,
        serve(live, Path(data)) as served,
        sync_playwright() as pw,
    ):
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        show = browser.new_page(viewport={"width": 1920, "height": 1080})
        show.goto(f"http://127.0.0.1:{served.port}/show")
        show.wait_for_selector("#show-map svg g.base", timeout=60_000)
        show.evaluate(WATCH_RULING)
        for i in range(confirms):
            a, b = pairs[i % 2]
            status, asked = post(
                served.port, "/api/resolve", {"action": "measure", "args": [a, b]}, served.token
            )
            if status != 200:
                raise SystemExit(f"/api/resolve answered {status}: {asked}")
            status, result = post(
                served.port,
                "/api/results",
                {"resolution": asked["log_id"], "decision": "confirm"},
                served.token,
            )
            acknowledged = time.time()
            if status != 201:
                raise SystemExit(f"/api/results answered {status}: {result}")
            words = f"Confirmed: measure {a} {b}"
            try:
                show.wait_for_function(
                    "words => window.rulingChanges.some(([, text]) => text.startsWith(words))",
                    arg=words,
                    timeout=10_000,
                )
            except PlaywrightTimeout:  # a confirm never shown is counted, not fatal
                missed += 1
                continue
            changes = show.evaluate("() => window.rulingChanges.splice(0)")
            shown = min(t for t, text in changes if text.startswith(words)) / 1000.0
            took.append(max(0.0, shown - acknowledged))
            time.sleep(every)
        browser.close()
    took.sort()
    return {
        "confirms": confirms,
        "shown": len(took),
        "missed": missed,
        "median_ms": round(1000 * statistics.median(took), 1) if took else None,
        "p95_ms": round(1000 * took[max(0, round(0.95 * len(took)) - 1)], 1) if took else None,
        "worst_ms": round(1000 * took[-1], 1) if took else None,
        "within_1s": sum(1 for t in took if t <= 1.0),
        "load": [round(x, 2) for x in (*load_before, *os.getloadavg())],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--confirms", type=int, default=20, help="confirms to time (default 20)")
    parser.add_argument("--every", type=float, default=1.5, help="seconds between confirms")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.confirms < 1 or args.every < 0:
        parser.error("--confirms takes a whole number >= 1 and --every a number of seconds >= 0")
    result = run(args.confirms, args.every)
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"/show after a Confirm: median {result['median_ms']} ms, p95 {result['p95_ms']} ms, "
            f"worst {result['worst_ms']} ms; {result['within_1s']} of {result['confirms']} "
            f"within 1 s, {result['missed']} never shown; load {result['load']}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
