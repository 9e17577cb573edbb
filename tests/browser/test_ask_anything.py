"""Ask anything (issue 15): every action of each ruleset is reachable from clicks on the map.
One clicked base offers the ruleset's one-piece actions, two its two-piece actions, the list
taken from the ruleset's own actions (`/api/actions`: how many pieces each takes, read off the
arguments it declares); each offered action, clicked, answers on the card."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page

from rules.engine import ruleset_ids

from .conftest import Player, Served

ANSWERED = """name => {
    const head = document.querySelector('#card .card-head')?.textContent ?? '';
    return head.startsWith(name) || document.querySelector('#card .error') !== null
        || (name === 'measure' && document.querySelector('#measure .facts') !== null);
}"""
"""The card answers this action (its heading names it), or says why it cannot."""

PAIR_ANSWERED = """([name, question]) => {
    const head = document.querySelector('#card .card-head')?.textContent ?? '';
    const card = head.startsWith(name) || document.querySelector('#card .error') !== null
        || (name === 'measure' && document.querySelector('#measure .facts') !== null
            && document.getElementById('card').textContent === '');
    return document.getElementById('question').textContent === question && card;
}"""
"""The clicked pair's question reads this action and the card answers it: the question and the
card are written together, so an answer left over from the action asked before never passes."""


def pair_question(name: str, a: str, b: str) -> str:
    """The question line above the card for an action asked of the clicked pair."""
    if name == "shoot":
        return f"{a} shoots at {b}"
    if name == "measure":
        return f"{a} and {b}"
    return f"{a} {name} {b}"


@pytest.fixture(params=ruleset_ids())
def demo_options(request: pytest.FixtureRequest) -> dict[str, object]:
    return {"ruleset": request.param, "move_every": 0}


def offered(page: Page) -> list[str]:
    found: list[str] = page.eval_on_selector_all(
        "#ask button.ask-action", "bs => bs.map(b => b.dataset.action)"
    )
    return found


def test_every_action_of_the_ruleset_is_reachable_from_clicks(page: Page, served: Served) -> None:
    served.live.stop()  # one scene for the whole walk
    player = Player(page, served)
    player.ready()
    listed: list[dict[str, Any]] = page.request.get(served.url + "/api/actions").json()["actions"]
    ruleset = page.request.get(served.url + "/api/status").json()["ruleset"]
    rulesets = page.request.get(served.url + "/api/rulesets").json()
    every = next(r["actions"] for r in rulesets if r["id"] == ruleset)
    assert {a["name"] for a in listed} == set(every) - {"suggest"}, listed
    takes = {a["name"]: (a["least"], a["most"]) for a in listed}
    bases = page.eval_on_selector_all(
        "#map g.base[data-base]", "gs => gs.map(g => [g.dataset.base, g.dataset.side])"
    )
    first = bases[0]
    second = next(b for b in bases if b[1] != first[1])
    reached: set[str] = set()

    def clear() -> None:
        if page.locator("#clear").is_visible():
            page.locator("#clear").click()

    # One piece clicked: its one-piece actions (and the table's own, which take none).
    clear()
    player.base_click(first[0])
    page.wait_for_selector("#ask button.ask-action")
    one = offered(page)
    for name in one:
        clear()
        player.base_click(first[0])
        button = page.locator(f'#ask button.ask-action[data-action="{name}"]')
        button.wait_for()
        button.click()
        page.wait_for_function(
            "text => document.getElementById('question').textContent.startsWith(text)",
            arg=f"asked: {name}",
        )
        page.wait_for_function(ANSWERED, arg=name)
        reached.add(name)
    # Two pieces clicked: the two-piece actions.
    clear()
    player.pair(first[0], second[0])
    two = offered(page)
    for name in two:
        if not takes[name][0] <= 2 <= takes[name][1]:
            continue  # an action of the whole table, asked above
        page.locator(f'#ask button.ask-action[data-action="{name}"]').click()
        page.wait_for_function(
            "name => document.querySelector(`#ask button[data-action='${name}']`)"
            "?.getAttribute('aria-pressed') === 'true'",
            arg=name,
        )
        page.wait_for_function(PAIR_ANSWERED, arg=[name, pair_question(name, first[0], second[0])])
        reached.add(name)
    for name, (least, most) in takes.items():
        if least <= 1 <= most or most == 0:
            assert name in one, (name, one)
        if least <= 2 <= most:
            assert name in two, (name, two)
    assert reached == set(takes), (sorted(reached), listed)


def ask(page: Page, name: str) -> None:
    page.locator(f'#ask button.ask-action[data-action="{name}"]').click()


@pytest.mark.parametrize("demo_options", [{"ruleset": "colonial-adventure", "move_every": 0}])
def test_an_action_asked_again_answers_after_another_replaced_its_dice_form(
    page: Page, served: Served
) -> None:
    """A card with a dice form holds still while the dice are entered (a new frame does not
    wipe them). Once another action replaces that card, asking the first action again answers
    it: the hold went with the card it held. Colonial Adventure's `shoot` (two pieces) and
    `actions` (one piece) both carry a dice form; `measure` and `morale` do not."""
    served.live.stop()  # one scene, so only the clicks change the card
    player = Player(page, served)
    player.ready()
    bases = page.eval_on_selector_all(
        "#map g.base[data-base]", "gs => gs.map(g => [g.dataset.base, g.dataset.side])"
    )
    a = bases[0][0]
    b = next(base for base in bases if base[1] != bases[0][1])[0]
    assert player.ask("shoot", a, b)["report_form"], "the shoot card should carry a dice form"
    assert player.ask("actions", a)["report_form"], "the actions card should carry a dice form"
    assert not player.ask("morale", a).get("report_form"), "morale should carry no dice form"
    form = "#card .report-form"

    # Two pieces: shoot (the pair's default), measure, shoot again.
    player.pair(a, b)
    page.wait_for_function(PAIR_ANSWERED, arg=["shoot", pair_question("shoot", a, b)])
    page.wait_for_selector(form)
    ask(page, "measure")
    page.wait_for_function(PAIR_ANSWERED, arg=["measure", pair_question("measure", a, b)])
    assert page.locator(form).count() == 0
    ask(page, "shoot")
    page.wait_for_function(PAIR_ANSWERED, arg=["shoot", pair_question("shoot", a, b)])
    page.wait_for_selector(form)

    # One piece: actions, morale, actions again.
    page.locator("#clear").click()
    player.base_click(a)
    for name in ["actions", "morale", "actions"]:
        ask(page, name)
        page.wait_for_function(
            "text => document.getElementById('question').textContent === text",
            arg=f"asked: {name} {a}",
        )
        page.wait_for_function(ANSWERED, arg=name)
    page.wait_for_selector(form)
