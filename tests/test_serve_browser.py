"""littlego serve in a real browser: Playwright driving Debian's Chromium (never a downloaded
one) against the app on a free local port. Skipped, saying why, where Chromium or the
playwright package is missing (.ci/run installs Chromium, as it installs GNU Go).

The pages run under their Content-Security-Policy, which refuses eval: every wait_for_function is
given a function ("() => ..."), which Playwright compiles once, never an expression, which it would
evaluate again at each poll (and the page's policy would refuse).

Set LITTLEGO_SCREENSHOTS=DIR to keep the pages' screenshots there (the README's are
docs/serve-runs.png, docs/serve-run.png and docs/serve-board.png).
"""

import json
import os
import shutil
import time
import urllib.parse
from typing import List, NamedTuple

import pytest

from engine.constants import PASS
from engine.solver import Solver
from engine.ui.web.server import serve_in_thread, stop
from tests.test_serve import PLY14, damaged_run, evolve_more, evolve_run, match_report, position_of

CHROMIUM = "/usr/bin/chromium"
# Headless, and nothing that reaches for the network on its own (this machine has none).
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:
    pytest.skip("the playwright package is not installed (pip install -e '.[test]')", allow_module_level=True)
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)


# No wait here has a wall-clock limit: what the server computes before a wait ends (its exact solver
# on a ply-14 position, the agent's move) takes 10-20 s on an idle 2-core machine and many times that
# beside other work (a 60 s bound failed on a busy machine, then a 300 s one). Each wait is for what the
# page shows; a hang is named by the test's own timeout (pytest-timeout: the default run's, or
# SLOW_TIMEOUT in tests/conftest.py), which fails the test at the line that waits.
UNBOUNDED = 0  # Playwright's timeout that waits as long as it takes
LINE = (12, 7, 13, 17, 11, 8, 16, 18)  # a line of play from the empty board to ply 8


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("browser")
    run_dir = evolve_run(folder, generations=3)  # generations 0, 1 and 2 of 0..3
    match_report(run_dir)
    damaged_run(os.path.dirname(run_dir))
    # A store of its own, the package's prefill beneath it, as `littlego serve` has by default.
    served = serve_in_thread(os.path.dirname(run_dir), solve_seconds=5.0, store=str(folder / "solved.sqlite"))
    yield served.url, run_dir
    stop(served)


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        try:
            chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        except PlaywrightError as error:
            pytest.skip(f"Chromium at {CHROMIUM} does not start: {str(error).splitlines()[0]}")
        yield chromium
        chromium.close()


def refusals(page):
    """The list into which the page's Content-Security-Policy refusals go, as Chromium logs them."""
    refused = []
    page.on("console", lambda message: "Content Security Policy" in message.text and refused.append(message.text))
    return refused


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1250, "height": 900})
    page.set_default_timeout(UNBOUNDED)
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    refused = refusals(page)
    yield page
    page.close()
    assert not errors, f"the page's scripts failed: {errors}"
    assert not refused, f"the page's Content-Security-Policy refused what the page does: {refused}"


def screenshot(page, name):
    folder = os.environ.get("LITTLEGO_SCREENSHOTS")
    if folder:
        page.screenshot(path=os.path.join(folder, name), full_page=True)


def test_the_runs_list_shows_the_run_and_the_damaged_one(site, page):
    url, run_dir = site
    page.goto(url + "#/runs")
    row = page.locator(f'tr.run[data-run="{os.path.basename(run_dir)}"]')
    row.wait_for()
    assert "tiny" in row.inner_text() and "stopped" in row.inner_text()
    assert "not a JSON line" in page.locator("td.problem").inner_text()
    screenshot(page, "serve-runs.png")


def test_a_run_page_shows_a_new_generation_without_a_reload(site, page):
    url, run_dir = site
    page.goto(url + "#/runs/" + os.path.basename(run_dir))
    page.wait_for_function("() => document.getElementById('run-generations')?.textContent === '3'")
    assert page.locator("svg.chart").count() == 5 and "tiny" in page.locator("#run-config").inner_text()
    assert "LLR" in page.locator("#run-reports").inner_text()
    page.evaluate("window.stillThisPage = true")
    evolve_more(run_dir)  # evolve writes generation 3 while the page is open
    page.wait_for_function("() => document.getElementById('run-generations').textContent === '4'")
    assert "finished" in page.locator("#run-head").inner_text()
    assert page.evaluate("window.stillThisPage") is True
    screenshot(page, "serve-run.png")


@pytest.mark.fast
def test_a_damaged_run_shows_its_message(site, page):
    url, _ = site
    page.goto(url + "#/runs/damaged-20260101-000000")
    page.locator("#run-problem .problem").wait_for()
    assert "generations.jsonl:1: not a JSON line" in page.locator("#run-problem").inner_text()


def board(page, url, opponent, values):
    """The board page against ``opponent`` ("": nobody), with or without the values (the page
    keeps the choice, so the empty board is not solved in vain)."""
    page.add_init_script("localStorage.setItem('values', '{}')".format("on" if values else "off"))
    page.goto(url + "#/board")
    page.locator("#board").wait_for()
    page.fill("#opponent", opponent)
    page.dispatch_event("#opponent", "change")


def test_a_whole_game_against_random_by_clicks(site, page):
    url, _ = site
    board(page, url, "random", values=False)
    for _ in range(30):
        if page.locator("#verdict").inner_text():
            break
        ply = page.evaluate("document.getElementById('status').textContent")
        legal = page.locator('#board .point[data-legal="1"]')
        if legal.count():
            legal.first.click()
        else:
            page.click("#pass")
        page.wait_for_function(
            "(before) => document.getElementById('status').textContent !== before "
            "&& !/thinking/.test(document.getElementById('message').textContent)",
            arg=ply,
        )
    assert page.locator("#verdict").inner_text().startswith("Result: ")
    assert "wins" in page.locator("#verdict").inner_text() and "game over" in page.locator("#status").inner_text()


def test_an_illegal_click_shows_the_rule(site, page):
    url, _ = site
    board(page, url, "", values=False)
    page.click('#board .point[data-point="12"]')
    page.locator('#board .point[data-point="12"][data-colour="1"]').wait_for()
    page.click('#board .point[data-point="12"]')
    page.wait_for_function("() => document.getElementById('message').textContent.includes('occupied')")
    assert page.locator("#message").inner_text() == "refused: 2,2 is occupied"


def test_on_the_empty_board_the_agent_shown_plays_2_2(site, page):
    url, _ = site
    board(page, url, "", values=True)
    page.locator("#agent-move").wait_for()
    assert page.locator("#agent-move").inner_text().startswith("2,2 ")
    assert "the solved game's only winning first move" in page.locator("#agent").inner_text()


def shown_results(page, ply):
    """{move: "win" or "loss"} of the values table once the position at ``ply`` shows every legal
    move exact (each row's result a win or a loss, none "?" nor still solving)."""
    page.wait_for_function(f"() => document.getElementById('status').textContent.startsWith('ply {ply} of 24')")
    page.wait_for_function(
        "() => { const rows = [...document.querySelectorAll('#values table.values tbody tr')];"
        " return rows.length && rows.every(row => row.dataset.wins === 'true' || row.dataset.wins === 'false'); }",
    )
    rows = page.locator("#values table.values tbody tr").all()
    return {row.get_attribute("data-move"): row.locator("td").nth(1).inner_text() for row in rows}


def assert_every_legal_move_exact(page, ply):
    """Every legal move (and the pass) shown as a win or a loss, in the table and on the board."""
    results = shown_results(page, ply)
    legal = [g.get_attribute("data-point") for g in page.locator('#board .point[data-legal="1"]').all()]
    assert sorted(results) == sorted(legal + [PASS]) and set(results.values()) <= {"win", "loss"}
    labels = [text.text_content() for text in page.locator("#board text.value-text").all()]
    assert len(labels) == len(legal) and "?" not in page.locator("#values").inner_text()
    assert all(label in ("W", "L") or label[0] in "+-" for label in labels)
    return results


def test_from_the_empty_board_every_legal_move_shows_an_exact_win_or_loss(site, page):
    url, _ = site
    board(page, url, "", values=True)
    first = assert_every_legal_move_exact(page, 0)
    assert [move for move, result in first.items() if result == "win"] == ["12"]  # 2,2 alone wins
    page.click('#board .point[data-point="12"]')
    assert_every_legal_move_exact(page, 1)
    page.click('#board .point[data-point="7"]')
    assert_every_legal_move_exact(page, 2)


@pytest.mark.slow
def test_past_the_prefill_the_board_says_solving_and_then_shows_every_move_exact(site, page):
    url, _ = site
    board(page, url, "", values=True)
    for ply, point in enumerate(LINE[:5], 1):
        page.click(f'#board .point[data-point="{point}"]')
        page.wait_for_function(f"() => document.getElementById('status').textContent.startsWith('ply {ply} of 24')")
    page.locator("#values table.values tbody tr").first.wait_for()
    first = page.locator("#values").inner_text()  # exact already, or the search's values while solving
    assert "?" not in first and ("solving…" in first or "exact" in first)
    assert_every_legal_move_exact(page, 5)  # the first ply past the prefill (plies 0-4)


def sgf_file(folder, moves):
    record = folder / "game.sgf"
    record.write_text(
        "(;GM[1]FF[4]SZ[5]KM[2.5]"
        + "".join(
            ";{}[{}]".format("BW"[k % 2], "" if move == PASS else "abcde"[move % 5] + "abcde"[move // 5])
            for k, move in enumerate(moves)
        )
        + ")"
    )
    return record


def test_an_sgf_opened_stepped_through_and_saved(site, page, tmp_path):
    url, _ = site
    board(page, url, "", values=False)
    page.set_input_files("#open", str(sgf_file(tmp_path, PLY14[:6])))
    page.wait_for_function("() => document.getElementById('status').textContent.includes('record move 6 of 6')")
    page.click("#back")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('record move 5 of 6')")
    assert page.locator(f'#board .point[data-point="{PLY14[5]}"]').get_attribute("data-colour") == "0"
    page.click("#forward")
    page.wait_for_function("() => document.getElementById('status').textContent.includes('record move 6 of 6')")
    with page.expect_download() as download:
        page.click("#save")
    saved = open(download.value.path()).read()
    assert saved.startswith("(;") and ";B[cc];W[cd];B[bc];W[dd];B[dc];W[ee]" in saved.replace("\n", "")


@pytest.mark.slow
def test_the_values_shown_are_the_solvers(site, page, tmp_path):
    url, _ = site
    record = sgf_file(tmp_path, PLY14)
    board(page, url, "", values=True)
    page.set_input_files("#open", str(record))
    page.wait_for_function(
        "() => (document.getElementById('values-note')?.textContent || '').startsWith('exact: the final')",
    )
    shown = {
        (PASS if row.get_attribute("data-move") == PASS else int(row.get_attribute("data-move"))): float(
            row.get_attribute("data-margin")
        )
        for row in page.locator("#values table.values tbody tr").all()
    }
    assert shown == Solver().move_values(position_of(PLY14))
    # every number says what it is: the margins in stones, the time as wall time, the agent's as its CPU
    assert "final margin (stones, komi included)" in page.locator("#values table.values thead").inner_text()
    assert "s of wall time" in page.locator("#values-note").inner_text()
    page.locator("#agent-move").wait_for()
    assert "s of its CPU" in page.locator("#agent").inner_text()
    time.sleep(0.2)
    screenshot(page, "serve-board.png")


def test_as_white_the_opponent_moves_first_and_undo_returns_to_your_turn(site, page):
    url, _ = site
    board(page, url, "", values=False)
    page.select_option("#human", "white")
    page.fill("#opponent", "greedy")
    page.dispatch_event("#opponent", "change")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('ply 1 of 24')")
    page.locator('#board .point[data-legal="1"]').first.click()
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('ply 3 of 24')")
    page.click("#undo")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('ply 1 of 24')")
    assert "White to move" in page.locator("#status").inner_text()


def test_a_position_never_shows_another_positions_values(site, page):
    """While a position's values are asked, its board and table show none: not the previous position's."""
    url, _ = site
    board(page, url, "", values=True)
    assert_every_legal_move_exact(page, 0)
    page.click('#board .point[data-point="12"]')
    assert_every_legal_move_exact(page, 1)  # the previous position's markers, all there
    held = []

    def hold(route):
        if len(json.loads(route.request.post_data)["moves"]) == 2 and not held:
            held.append(route)  # the ply-2 values, answered only when the test says
        else:
            route.continue_()

    page.route("**/api/board/values", hold)
    page.click('#board .point[data-point="7"]')
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('ply 2 of 24')")
    assert page.locator("#board text.value-text").count() == 0  # none of ply 1's W and L
    # the panel says it is solving (it may render a moment after the status, on a busy machine), and
    # shows no row meanwhile: ply 2's values are held back, and ply 1's are gone
    page.wait_for_function("() => document.getElementById('values').textContent.includes('solving')")
    assert page.locator("table.values tbody tr").count() == 0 and page.locator("#board text.value-text").count() == 0
    # the agent's move comes back meanwhile (it is not held): the panel still says it is solving
    page.wait_for_function("() => document.getElementById('agent').textContent.length > 0")
    assert "solving" in page.locator("#values").inner_text()
    for route in held:
        route.continue_()
    assert_every_legal_move_exact(page, 2)


@pytest.mark.slow
def test_a_line_to_ply_8_never_shows_another_positions_values_and_plies_0_to_4_are_exact_at_once(site, page):
    """Walking a line of play from the empty board to ply 8, each position's first values answer is held
    back: meanwhile its board and table show none (not the previous position's), and at the end the table
    is the last position's. At plies 0-4 that first answer is already every move's
    exact win or loss, from the package's prefill: nothing to solve, so the board shows them as soon as
    it asks (no "solving…")."""
    url, _ = site
    held = []
    asked = set()

    def hold(route):
        moves = tuple(json.loads(route.request.post_data)["moves"])
        if moves in asked:
            route.continue_()  # the same position asked again (pending, or its margins)
        else:
            asked.add(moves)
            held.append((moves, route))

    page.route("**/api/board/values", hold)
    board(page, url, "", values=True)
    for ply in range(len(LINE) + 1):
        page.wait_for_function(f"() => document.getElementById('status').textContent.startsWith('ply {ply} of 24')")
        while not held:  # the page's first ask of this position reaches the route
            page.wait_for_timeout(50)
        moves, route = held.pop(0)
        assert list(moves) == list(LINE[:ply]) and not held
        assert page.locator("#board text.value-text").count() == 0
        assert page.locator("#values table.values tbody tr").count() == 0
        if 4 < ply < len(LINE):
            route.continue_()  # past the prefill the answer takes the board's seconds: the next move comes first
        else:
            answer = route.fetch()
            first = answer.json()
            route.fulfill(response=answer)
            assert ply > 4 or (first["exact"] and not first["pending"]), (ply, first["note"])
            assert first["moves"] and all(value["wins"] in (True, False) or ply > 4 for value in first["moves"])
            page.locator("#values table.values tbody tr").first.wait_for()
        if ply < len(LINE):
            page.click(f'#board .point[data-point="{LINE[ply]}"]')
    rows = {row.get_attribute("data-move") for row in page.locator("#values table.values tbody tr").all()}
    legal = {point.get_attribute("data-point") for point in page.locator('#board .point[data-legal="1"]').all()}
    assert rows == legal | {PASS} and "ply 8 of 24" in page.locator("#status").inner_text()


def test_new_game_while_the_opponent_thinks_drops_its_answer(site, page):
    url, _ = site
    board(page, url, "random", values=False)
    held, holding = [], [True]
    page.route("**/api/board/reply", lambda route: held.append(route) if holding[0] else route.continue_())
    page.click('#board .point[data-point="12"]')
    page.wait_for_function("() => document.getElementById('message').textContent.includes('thinking')")
    page.click("#new")
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('ply 0 of 24')")
    assert "thinking" not in page.locator("#message").inner_text()
    holding[0] = False
    with page.expect_response("**/api/board/reply"):
        held[0].continue_()  # the old game's answer arrives now
    page.wait_for_timeout(500)  # the page's handling of it
    assert page.locator("#status").inner_text().startswith("ply 0 of 24")  # and is dropped
    assert page.locator('#board .point[data-colour="1"], #board .point[data-colour="2"]').count() == 0
    page.click('#board .point[data-point="12"]')  # the new game plays on
    page.wait_for_function("() => document.getElementById('status').textContent.startsWith('ply 2 of 24')")


def test_the_position_is_in_the_address_and_a_reload_or_a_link_shows_it(site, page):
    url, _ = site
    board(page, url, "", values=False)
    page.click('#board .point[data-point="12"]')
    page.wait_for_function("() => location.hash === '#/board?moves=C3'")
    page.click('#board .point[data-point="6"]')
    page.wait_for_function("() => location.hash === '#/board?moves=C3,B4'")
    page.reload()  # a bookmark, a reload: the same position
    page.locator('#board .point[data-point="6"][data-colour="2"]').wait_for()
    assert page.locator('#board .point[data-point="12"][data-colour="1"]').count() == 1
    page.goto(url + "#/board?moves=C3,pass,D2")  # a shared link
    page.locator('#board .point[data-point="18"][data-colour="1"]').wait_for()
    assert "ply 3" in page.locator("#status").inner_text()
    page.goto(url + "#/board?moves=C3,Z9")
    page.wait_for_function("() => document.getElementById('message').textContent.includes('names no move')")
    assert 'the address names no move "Z9"' in page.locator("#message").inner_text()


LOST_LINE = "A3,E5,E3,D1,B5,D5,C1,B4,C2,C5,E1,A2,D4,A5"  # ply 14: every move loses
UNREACHED = {"lost": True, "moves": [], "least_bad": None, "complete": False, "deepest": 6}


def test_a_lost_position_shows_the_least_bad_move(site, page):
    url, _ = site
    page.add_init_script("localStorage.setItem('values', 'on')")
    page.goto(url + f"#/board?moves={LOST_LINE}")
    page.locator("#least-bad").wait_for()
    rows = page.locator("#refutations tbody tr").all()
    counts = [(int(row.get_attribute("data-keeping")), int(row.get_attribute("data-replies"))) for row in rows]
    shares = [keeping / replies if replies else 1.0 for keeping, replies in counts]
    assert shares and shares[0] == min(shares) and len(rows) == 12  # every legal move and pass, fewest first
    assert page.locator("#least-bad").inner_text().startswith("Every move loses. The least-bad: ")
    assert "replies keep the win" in page.locator("#refutations").inner_text()
    depths = [row.get_attribute("data-depth") for row in rows]
    assert all(depth == "" or 1 <= int(depth) <= 6 for depth in depths) and any(depths)
    assert "the agent's search finds one at depth" in page.locator("#refutations thead").inner_text()


@pytest.mark.slow
def test_refutations_that_reached_no_move_are_asked_for_again(site, page):
    """On a busy machine the server's few seconds of solving may reach no move's replies: the page says
    it is solving and asks again (the server keeps what it solved), and shows the table once an answer
    comes with the moves."""
    url, _ = site
    asked, held = [], []

    def first_unreached(route):
        asked.append(route.request.post_data)
        if len(asked) == 1:
            route.fulfill(json=UNREACHED)
        else:
            held.append(route)  # the second ask, answered when the test has seen the note

    page.route("**/api/board/refutations", first_unreached)
    page.add_init_script("localStorage.setItem('values', 'on')")
    page.goto(url + f"#/board?moves={LOST_LINE}")
    page.locator("#refutations-wait").wait_for()
    assert page.locator("#refutations-wait").inner_text() == "solving the opponent's replies…"
    while not held:  # the page's second ask reaches the route
        page.wait_for_timeout(100)
    assert held, "the page did not ask again"
    held[0].continue_()
    page.locator("#least-bad").wait_for()
    assert len(asked) == 2 and asked[0] == asked[1]
    assert page.locator("#refutations-wait").count() == 0


def test_refutations_the_solver_never_reaches_say_so_after_the_last_ask(site, page):
    url, _ = site
    asked = []

    def unreached(route):
        asked.append(route.request.post_data)
        route.fulfill(json=UNREACHED)

    page.route("**/api/board/refutations", unreached)
    page.add_init_script("localStorage.setItem('values', 'on')")
    page.goto(url + f"#/board?moves={LOST_LINE}")
    page.wait_for_function(
        "() => (document.getElementById('refutations-wait') || {textContent: ''}).textContent.includes('step away')",
    )
    assert len(asked) == 5  # REFUTATION_ASKS in board.js
    assert page.locator("#least-bad").count() == 0


@pytest.mark.slow
def test_keep_solving_settles_the_margins_the_first_answer_left_open(site, page):
    """At ply 12 of this line the Python solver needs about 10 CPU s for every move's margin, past the
    site's 5 s: the table comes with the results alone and the button; a click gives the margins up to
    5 minutes, and each one then agrees with the compiled solver's win or loss."""
    url, _ = site
    page.add_init_script("localStorage.setItem('values', 'on')")
    page.goto(url + "#/board?moves=A3,E5,E3,D1,B5,D5,C1,B4,C2,C5,E1,A2")
    button = page.locator("#keep-solving")
    button.wait_for()
    assert page.locator('#values table.values tbody tr[data-margin=""]').count() > 0
    button.click()
    page.wait_for_function(
        "() => { const rows = [...document.querySelectorAll('#values table.values tbody tr')];"
        " return rows.length && rows.every(row => row.dataset.margin !== ''); }",
    )
    rows = page.locator("#values table.values tbody tr").all()
    for row in rows:
        margin, wins = float(row.get_attribute("data-margin")), row.get_attribute("data-wins")
        assert (margin > 0) == (wins == "true"), (row.get_attribute("data-move"), margin, wins)
    assert page.locator("#keep-solving").count() == 0


# What a hostile student can put into a run folder, an SGF file, a player spec or an address: markup that
# runs script wherever a page takes it for HTML. The pages must show it as text, and the CSP must stop it
# even where they did not.


def hostile(label, slash=True):
    """``label`` and markup that, taken for HTML, sets ``window.pwned`` to ``label`` and raises a dialog
    saying it; ``slash``: with the form that closes a script element (a folder's name holds no /)."""
    run = f"window.pwned='{label}';alert('{label}')"
    text = f'{label} <img src=x onerror="{run}"><svg onload="{run}">'
    return text + (f"</script><script>{run}</script>" if slash else "")


class Hostile(NamedTuple):
    """The app serving a runs folder whose every shown field is hostile(): its URL, the run's name and the
    name of a folder that is no run."""

    url: str
    run: str
    stray: str


@pytest.fixture(scope="module")
def hostile_site(site, tmp_path_factory):
    """The site's run copied into a folder named hostile(), its experiment, constant names, executor,
    log and a match report (file name, players, games, wins, SPRT, interruption) all hostile; beside it
    a hostile folder that is no run (its message names it)."""
    _, run_dir = site
    runs_dir = tmp_path_factory.mktemp("hostile") / "runs"
    run = runs_dir / hostile("folder", slash=False)
    shutil.copytree(run_dir, run)
    records = [json.loads(line) for line in (run / "generations.jsonl").read_text().splitlines()]
    for record in records:
        record["best_weights"] = {hostile(f"constant {key}"): value for key, value in record["best_weights"].items()}
        record["executor"] = {"executor": hostile("executor"), "workers": hostile("workers")}
    (run / "generations.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))
    config = (run / "config.toml").read_text()
    assert 'name = "tiny"' in config
    (run / "config.toml").write_text(config.replace('name = "tiny"', "name = " + json.dumps(hostile("experiment"))))
    (run / "run.log").write_text("2026-01-01 00:00:00 " + hostile("log") + "\n")
    sprt = {"llr": 0.5, "lower": -2.94, "upper": 2.94, "elo0": hostile("elo0"), "elo1": hostile("elo1")}
    report = {
        "a": hostile("player a"),
        "b": hostile("player b"),
        "games": hostile("games"),
        "wins": {hostile("player a"): hostile("wins")},
        "sprt": dict(sprt, decision=hostile("decision")),
        "interrupted": hostile("interrupted"),
    }
    (run / (hostile("report", slash=False) + ".json")).write_text(json.dumps(report))
    stray = hostile("stray", slash=False)
    (runs_dir / stray).mkdir()
    served = serve_in_thread(str(runs_dir), solve_seconds=1.0)
    yield Hostile(served.url, run.name, stray)
    stop(served)


class Signs(NamedTuple):
    """What a page shows of script it did not ship: the dialogs raised, its errors, its CSP's refusals."""

    dialogs: List[str]
    errors: List[str]
    refused: List[str]


WITHOUT_CSP = "without its CSP"


@pytest.fixture(params=["as served", WITHOUT_CSP])
def guarded(browser, request):
    """A page watched for script that it did not ship, served with its Content-Security-Policy or with the
    policy bypassed (then the pages' showing data as text is all that stands in the way)."""
    context = browser.new_context(bypass_csp=request.param == WITHOUT_CSP, viewport={"width": 1250, "height": 900})
    context.set_default_timeout(UNBOUNDED)
    page = context.new_page()
    signs = Signs([], [], refusals(page))
    page.on("dialog", lambda dialog: (signs.dialogs.append(dialog.message), dialog.dismiss()))
    page.on("pageerror", lambda error: signs.errors.append(str(error)))
    yield page, signs
    context.close()


def assert_no_script_ran(page, signs):
    """No hostile markup became an element, ran, or was refused by the CSP (it was never HTML)."""
    page.wait_for_timeout(500)  # a payload's image failing to load, its handler running
    ran = sorted(set(signs.dialogs))
    assert page.evaluate("window.pwned") is None and not ran, f"the markup of {ran} ran"
    assert not signs.errors and not signs.refused, signs
    made = page.evaluate(
        "[...document.querySelectorAll('*')].filter(e => ['IMG', 'SCRIPT'].includes(e.tagName) && !e.src"
        " || [...e.attributes].some(a => a.name.startsWith('on'))).map(e => e.outerHTML)"
    )
    assert made == [], made


def shown(page, selector="#main"):
    return page.locator(selector).text_content()


def test_the_runs_list_shows_hostile_names_as_text(hostile_site, guarded):
    page, signs = guarded
    page.goto(hostile_site.url + "#/runs")
    page.locator("tr.problem-row").wait_for()
    assert_no_script_ran(page, signs)
    row = page.locator("tr.run").filter(has_text="executor")
    assert row.locator("a").text_content() == hostile_site.run and row.get_attribute("data-run") == hostile_site.run
    listed = shown(page, "#runs-table")
    assert all(hostile(label) in listed for label in ("experiment", "executor", "workers"))
    assert hostile_site.stray + ": not a run folder" in listed


def test_a_run_page_shows_hostile_names_as_text(hostile_site, guarded):
    page, signs = guarded
    page.goto(hostile_site.url + "#/runs/" + urllib.parse.quote(hostile_site.run, safe=""))
    page.wait_for_function("() => document.querySelectorAll('svg.chart').length === 5")
    page.locator("#run-reports table.reports").wait_for()
    assert_no_script_ran(page, signs)
    assert shown(page, "h1") == hostile_site.run
    legend = page.locator("figure.chart-box").last.locator(".legend span").all_text_contents()
    assert legend and all(key.startswith("constant ") and key == hostile(key.split(" <")[0]) for key in legend)
    head, reports = shown(page, "#run-head"), shown(page, "#run-reports")
    assert all(hostile(label) in head for label in ("experiment", "executor", "workers"))
    labels = ("player a", "player b", "games", "wins", "elo0", "elo1", "decision", "interrupted")
    assert hostile("report", slash=False) + ".json" in reports and all(hostile(label) in reports for label in labels)
    assert hostile("log") in shown(page, "#run-log")


def test_an_address_naming_a_hostile_run_shows_it_as_text(hostile_site, guarded):
    page, signs = guarded
    name = hostile("address")
    page.goto(hostile_site.url + "#/runs/" + urllib.parse.quote(name, safe=""))
    page.locator("#run-problem .error").wait_for()
    assert_no_script_ran(page, signs)
    assert shown(page, "h1") == name and name in shown(page, "#run-problem")


def test_the_board_shows_a_hostile_spec_address_and_sgf_as_text(hostile_site, guarded, tmp_path):
    page, signs = guarded
    spec, move = hostile("spec"), hostile("move")
    page.add_init_script(f"localStorage.setItem('values', 'off'); localStorage.setItem('opponent', {json.dumps(spec)})")
    page.goto(hostile_site.url + "#/board?moves=" + urllib.parse.quote(move, safe=""))
    page.wait_for_function("() => document.getElementById('message').textContent.includes('names no move')")
    assert json.dumps(move) in shown(page, "#message") and page.input_value("#opponent") == spec
    page.click('#board .point[data-point="12"]')  # the hostile opponent is asked for its move
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('unknown player')")
    assert repr(spec) in shown(page, "#message")  # the parser's message names it
    record = tmp_path / (hostile("file", slash=False) + ".sgf")
    players = {key: hostile(key) for key in ("PB", "PW", "RE")}
    record.write_text("(;GM[1]FF[4]SZ[5]" + "".join(f"{key}[{value}]" for key, value in players.items()) + ";B[cc])")
    page.set_input_files("#open", str(record))
    page.wait_for_function("() => document.getElementById('message').textContent.startsWith('opened')")
    assert_no_script_ran(page, signs)
    message = shown(page, "#message")
    assert record.name in message and all(value in message for value in players.values())


def test_the_csp_stops_markup_that_reached_the_page(site, browser):
    """Were some text ever put into the page as HTML, its inline handler and script would not run: the
    page's Content-Security-Policy refuses them (and says so)."""
    url, _ = site
    page = browser.new_page()
    page.set_default_timeout(UNBOUNDED)
    page.goto(url + "#/runs")
    page.locator("tr.run").first.wait_for()
    refused = page.evaluate(
        """() => new Promise(done => {
          const seen = [];
          document.addEventListener("securitypolicyviolation", event => seen.push(event.effectiveDirective));
          document.getElementById("main").insertAdjacentHTML("beforeend", `<img src="data:," onerror="pwned = 1">`);
          const script = document.createElement("script");
          script.textContent = "window.pwned = 2";
          document.body.append(script);
          setTimeout(() => done(seen), 500);
        })"""
    )
    assert page.evaluate("window.pwned") is None
    assert "script-src-attr" in refused and "script-src-elem" in refused, refused
    page.close()
