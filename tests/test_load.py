"""Load, as behaviour: 50 spectators on loopback (each from an address of its own, as at a show)
follow the live view and the event stream of `umpire serve`'s server while the tracker runs and
a player confirms results. Every spectator gets pictures and frame events,
none gets an error, and every result the server confirmed with a 201 is in the game log.

How fast the tracker keeps up under that load is measured, not asserted, by
`python -m benchmarks.bench_load` (a busy machine would fail a speed bound for nothing).

The frames are the built-in demo's (1280x720, the small skirmish table), rendered beforehand
and played in a loop at 30 frames a second like a webcam. The test ends as soon as everybody
has what it checks, and every loop has a deadline.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from benchmarks.bench_load import demo_frames
from benchmarks.serving import (
    LoopSource,
    Served,
    Spectator,
    confirm_results,
    logged_results,
    serve,
    spectate,
    spectator_address,
)
from webui.live import Live

SPECTATORS = 50
EACH_AT_LEAST = 5
"""Pictures and frame events every spectator must get."""
RESULTS = 3
"""Results the player confirms."""
DEADLINE_S = 180.0


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    images, game = demo_frames(45)
    live = Live(LoopSource(images, 30.0), game)
    with serve(live, tmp_path_factory.mktemp("load"), "load-test-token") as running:
        yield running


def test_fifty_spectators_all_get_pictures_and_events_and_no_confirmed_result_is_lost(
    served: Served,
) -> None:
    until = time.monotonic() + DEADLINE_S
    stop = threading.Event()
    crowd = [Spectator(address=spectator_address(i)) for i in range(SPECTATORS)]
    threads = [
        threading.Thread(target=spectate, args=(served.port, until, s, stop), daemon=True)
        for s in crowd
    ]
    confirmed: list[int] = []
    player = threading.Thread(
        target=confirm_results,
        args=(served.port, served.token, until, confirmed, 0.5, stop),
        daemon=True,
    )
    for thread in [*threads, player]:
        thread.start()

    def everybody_served() -> bool:
        return len(confirmed) >= RESULTS and all(
            s.pictures.count >= EACH_AT_LEAST and s.events.count >= EACH_AT_LEAST for s in crowd
        )

    while not everybody_served() and time.monotonic() < until:
        if any(s.error for s in crowd):
            break
        time.sleep(0.2)
    stop.set()
    for thread in [*threads, player]:
        thread.join(timeout=30)
    assert not any(t.is_alive() for t in threads), "a spectator never finished"
    errors = [s.error for s in crowd if s.error]
    assert not errors, errors[:3]
    assert min(s.pictures.count for s in crowd) >= EACH_AT_LEAST
    assert min(s.events.count for s in crowd) >= EACH_AT_LEAST
    assert len(confirmed) >= RESULTS
    logged = logged_results(served.data)
    assert set(confirmed) <= set(logged)
    assert all(logged[i]["decision"] == "confirm" for i in confirmed)
