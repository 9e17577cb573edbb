"""`webui/server.py`'s broadcaster thread (the live view's drawing and encoding) runs below the
tracker where the system lets one thread be set apart: the tracker's scan comes first on a busy
CPU."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from webui.server import PICTURE_NICENESS, _lower_this_thread


@pytest.mark.skipif(sys.platform != "linux", reason="threads have their own nice value on Linux")
def test_a_lowered_thread_runs_niceness_steps_below_the_others() -> None:
    seen: dict[str, int] = {}

    def lowered() -> None:
        tid = threading.get_native_id()
        before = os.getpriority(os.PRIO_PROCESS, tid)
        _lower_this_thread(PICTURE_NICENESS)
        seen["before"], seen["after"] = before, os.getpriority(os.PRIO_PROCESS, tid)

    worker = threading.Thread(target=lowered)
    worker.start()
    worker.join()
    # Nice values stop at 19: a thread already near it is lowered as far as it goes.
    assert seen["after"] == min(seen["before"] + PICTURE_NICENESS, 19)
    assert seen["after"] > seen["before"] or seen["before"] == 19
    # The calling thread (the tracker's side of the process) keeps its own.
    main = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    assert main == seen["before"]
