"""The newest scene's map drawings are shared by every page asking the same question
(webui/app.py `DrawnMaps`): one drawing per scene and question, made once even when many pages
ask at once, forgotten for a newer scene."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from webui.app import DrawnMaps


class Drawer:
    """Counts its drawings; each waits until `go` is set, so callers pile up meanwhile."""

    def __init__(self) -> None:
        self.count = 0
        self.go = threading.Event()
        self._lock = threading.Lock()

    def __call__(self, text: str = "<svg/>") -> str:
        self.go.wait(10)
        with self._lock:
            self.count += 1
        return f"{text} #{self.count}"


def test_pages_asking_at_once_get_one_drawing() -> None:
    maps, draw, scene = DrawnMaps(), Drawer(), object()
    with ThreadPoolExecutor(max_workers=20) as pool:
        asked = [pool.submit(maps.get, scene, ("cm", None), draw) for _ in range(20)]
        draw.go.set()
        answers = {future.result(timeout=10) for future in asked}
    assert answers == {"<svg/> #1"}
    assert draw.count == 1


def test_another_question_or_a_newer_scene_is_drawn_again() -> None:
    maps, draw = DrawnMaps(), Drawer()
    draw.go.set()
    first, second = object(), object()
    assert maps.get(first, ("cm", None), draw) == "<svg/> #1"
    assert maps.get(first, ("cm", "rifles"), draw) == "<svg/> #2"
    assert maps.get(first, ("cm", None), draw) == "<svg/> #1"
    assert maps.get(second, ("cm", None), draw) == "<svg/> #3"
    assert maps.get(first, ("cm", None), draw) == "<svg/> #4"  # the older scene was forgotten
    assert draw.count == 4


def test_a_failed_drawing_fails_for_every_page_that_asked() -> None:
    maps, scene = DrawnMaps(), object()
    calls = []

    def broken() -> str:
        calls.append(1)
        raise ValueError("unknown unit 'ghost'")

    for _ in range(3):
        with pytest.raises(ValueError, match="ghost"):
            maps.get(scene, ("cm", "ghost"), broken)
    assert len(calls) == 1


def test_at_most_so_many_questions_a_scene_are_kept() -> None:
    maps, draw, scene = DrawnMaps(), Drawer(), object()
    draw.go.set()
    for n in range(DrawnMaps.MOST + 5):
        maps.get(scene, ("cm", f"unit-{n}"), draw)
    kept_before = draw.count
    maps.get(scene, ("cm", "unit-0"), draw)  # kept: not drawn again
    maps.get(scene, ("cm", f"unit-{DrawnMaps.MOST + 1}"), draw)  # over the bound: drawn again
    assert draw.count == kept_before + 1
