"""littlego serve in a real browser: Playwright driving Debian's Chromium (never a downloaded
one) against the app on a free local port. Skipped, saying why, where Chromium or the
playwright package is missing (.ci/run installs Chromium, as it installs GNU Go).

Set LITTLEGO_SCREENSHOTS=DIR to keep the pages' screenshots there (the README's are
docs/serve-runs.png, docs/serve-run.png and docs/serve-board.png).
"""

import json
import os
import time

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


# What the server computes before these waits end (its exact solver on a ply-14 position, the agent's
# move) takes 10-20 s on an idle 2-core machine and several times that beside other work; the wait
# bounds a hang, not the speed (a 60 s bound failed once on the busy machine).
SOLVER_WAIT_MS = 300_000
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


@pytest.fixture
def page(browser):
    page = browser.new_page(viewport={"width": 1250, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    page.close()
    assert not errors, f"the page's scripts failed: {errors}"


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
    page.wait_for_function("document.getElementById('run-generations')?.textContent === '3'")
    assert page.locator("svg.chart").count() == 5 and "tiny" in page.locator("#run-config").inner_text()
    assert "LLR" in page.locator("#run-reports").inner_text()
    page.evaluate("window.stillThisPage = true")
    evolve_more(run_dir)  # evolve writes generation 3 while the page is open
    page.wait_for_function("document.getElementById('run-generations').textContent === '4'", timeout=15000)
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


@pytest.mark.fast
def test_an_illegal_click_shows_the_rule(site, page):
    url, _ = site
    board(page, url, "", values=False)
    page.click('#board .point[data-point="12"]')
    page.locator('#board .point[data-point="12"][data-colour="1"]').wait_for()
    page.click('#board .point[data-point="12"]')
    page.wait_for_function("document.getElementById('message').textContent.includes('occupied')")
    assert page.locator("#message").inner_text() == "refused: 2,2 is occupied"


@pytest.mark.fast
def test_on_the_empty_board_the_agent_shown_plays_2_2(site, page):
    url, _ = site
    board(page, url, "", values=True)
    page.locator("#agent-move").wait_for(timeout=SOLVER_WAIT_MS)
    assert page.locator("#agent-move").inner_text().startswith("2,2 ")
    assert "the solved game's only winning first move" in page.locator("#agent").inner_text()


def shown_results(page, ply, seconds=120):
    """{move: "win" or "loss"} of the values table once the position at ``ply`` shows every legal
    move exact (each row's result a win or a loss, none "?" nor still solving), within ``seconds``."""
    page.wait_for_function(f"document.getElementById('status').textContent.startsWith('ply {ply} of 24')")
    page.wait_for_function(
        "(() => { const rows = [...document.querySelectorAll('#values table.values tbody tr')];"
        " return rows.length && rows.every(row => row.dataset.wins === 'true' || row.dataset.wins === 'false'); })()",
        timeout=seconds * 1000,
    )
    rows = page.locator("#values table.values tbody tr").all()
    return {row.get_attribute("data-move"): row.locator("td").nth(1).inner_text() for row in rows}


def assert_every_legal_move_exact(page, ply, seconds=120):
    """Every legal move (and the pass) shown as a win or a loss, in the table and on the board."""
    results = shown_results(page, ply, seconds)
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
        page.wait_for_function(f"document.getElementById('status').textContent.startsWith('ply {ply} of 24')")
    page.locator("#values table.values tbody tr").first.wait_for(timeout=SOLVER_WAIT_MS)
    first = page.locator("#values").inner_text()  # exact already, or the search's values while solving
    assert "?" not in first and ("solving…" in first or "exact" in first)
    assert_every_legal_move_exact(page, 5, seconds=400)  # the first ply past the prefill (plies 0-4)


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


@pytest.mark.fast
def test_an_sgf_opened_stepped_through_and_saved(site, page, tmp_path):
    url, _ = site
    board(page, url, "", values=False)
    page.set_input_files("#open", str(sgf_file(tmp_path, PLY14[:6])))
    page.wait_for_function("document.getElementById('status').textContent.includes('record move 6 of 6')")
    page.click("#back")
    page.wait_for_function("document.getElementById('status').textContent.includes('record move 5 of 6')")
    assert page.locator(f'#board .point[data-point="{PLY14[5]}"]').get_attribute("data-colour") == "0"
    page.click("#forward")
    page.wait_for_function("document.getElementById('status').textContent.includes('record move 6 of 6')")
    with page.expect_download() as download:
        page.click("#save")
    saved = open(download.value.path()).read()
    assert saved.startswith("(;") and ";B[cc];W[cd];B[bc];W[dd];B[dc];W[ee]" in saved.replace("\n", "")


def test_the_values_shown_are_the_solvers(site, page, tmp_path):
    url, _ = site
    record = sgf_file(tmp_path, PLY14)
    board(page, url, "", values=True)
    page.set_input_files("#open", str(record))
    page.wait_for_function(
        "(document.getElementById('values-note')?.textContent || '').startsWith('exact: the final')",
        timeout=SOLVER_WAIT_MS,
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
    page.locator("#agent-move").wait_for(timeout=SOLVER_WAIT_MS)
    assert "s of its CPU" in page.locator("#agent").inner_text()
    time.sleep(0.2)
    screenshot(page, "serve-board.png")


@pytest.mark.fast
def test_as_white_the_opponent_moves_first_and_undo_returns_to_your_turn(site, page):
    url, _ = site
    board(page, url, "", values=False)
    page.select_option("#human", "white")
    page.fill("#opponent", "greedy")
    page.dispatch_event("#opponent", "change")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('ply 1 of 24')")
    page.locator('#board .point[data-legal="1"]').first.click()
    page.wait_for_function("document.getElementById('status').textContent.startsWith('ply 3 of 24')")
    page.click("#undo")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('ply 1 of 24')")
    assert "White to move" in page.locator("#status").inner_text()


@pytest.mark.fast
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
    page.wait_for_function("document.getElementById('status').textContent.startsWith('ply 2 of 24')")
    assert page.locator("#board text.value-text").count() == 0  # none of ply 1's W and L
    # the panel says it is solving (it may render a moment after the status, on a busy machine), and
    # shows no row meanwhile: ply 2's values are held back, and ply 1's are gone
    page.wait_for_function("document.getElementById('values').textContent.includes('solving')")
    assert page.locator("table.values tbody tr").count() == 0 and page.locator("#board text.value-text").count() == 0
    # the agent's move comes back meanwhile (it is not held): the panel still says it is solving
    page.wait_for_function("document.getElementById('agent').textContent.length > 0")
    assert "solving" in page.locator("#values").inner_text()
    for route in held:
        route.continue_()
    assert_every_legal_move_exact(page, 2)


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
        page.wait_for_function(f"document.getElementById('status').textContent.startsWith('ply {ply} of 24')")
        for _ in range(600):
            if held:
                break
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
            page.locator("#values table.values tbody tr").first.wait_for(timeout=SOLVER_WAIT_MS)
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
    page.wait_for_function("document.getElementById('message').textContent.includes('thinking')")
    page.click("#new")
    page.wait_for_function("document.getElementById('status').textContent.startsWith('ply 0 of 24')")
    assert "thinking" not in page.locator("#message").inner_text()
    holding[0] = False
    with page.expect_response("**/api/board/reply"):
        held[0].continue_()  # the old game's answer arrives now
    page.wait_for_timeout(500)  # the page's handling of it
    assert page.locator("#status").inner_text().startswith("ply 0 of 24")  # and is dropped
    assert page.locator('#board .point[data-colour="1"], #board .point[data-colour="2"]').count() == 0
    page.click('#board .point[data-point="12"]')  # the new game plays on
    page.wait_for_function("document.getElementById('status').textContent.startsWith('ply 2 of 24')")


@pytest.mark.fast
def test_the_position_is_in_the_address_and_a_reload_or_a_link_shows_it(site, page):
    url, _ = site
    board(page, url, "", values=False)
    page.click('#board .point[data-point="12"]')
    page.wait_for_function("location.hash === '#/board?moves=C3'")
    page.click('#board .point[data-point="6"]')
    page.wait_for_function("location.hash === '#/board?moves=C3,B4'")
    page.reload()  # a bookmark, a reload: the same position
    page.locator('#board .point[data-point="6"][data-colour="2"]').wait_for()
    assert page.locator('#board .point[data-point="12"][data-colour="1"]').count() == 1
    page.goto(url + "#/board?moves=C3,pass,D2")  # a shared link
    page.locator('#board .point[data-point="18"][data-colour="1"]').wait_for()
    assert "ply 3" in page.locator("#status").inner_text()
    page.goto(url + "#/board?moves=C3,Z9")
    page.wait_for_function("document.getElementById('message').textContent.includes('names no move')")
    assert 'the address names no move "Z9"' in page.locator("#message").inner_text()


LOST_LINE = "A3,E5,E3,D1,B5,D5,C1,B4,C2,C5,E1,A2,D4,A5"  # ply 14: every move loses
UNREACHED = {"lost": True, "moves": [], "least_bad": None, "complete": False, "deepest": 6}


def test_a_lost_position_shows_the_least_bad_move(site, page):
    url, _ = site
    page.add_init_script("localStorage.setItem('values', 'on')")
    page.goto(url + f"#/board?moves={LOST_LINE}")
    page.locator("#least-bad").wait_for(timeout=SOLVER_WAIT_MS)
    rows = page.locator("#refutations tbody tr").all()
    counts = [(int(row.get_attribute("data-keeping")), int(row.get_attribute("data-replies"))) for row in rows]
    shares = [keeping / replies if replies else 1.0 for keeping, replies in counts]
    assert shares and shares[0] == min(shares) and len(rows) == 12  # every legal move and pass, fewest first
    assert page.locator("#least-bad").inner_text().startswith("Every move loses. The least-bad: ")
    assert "replies keep the win" in page.locator("#refutations").inner_text()
    depths = [row.get_attribute("data-depth") for row in rows]
    assert all(depth == "" or 1 <= int(depth) <= 6 for depth in depths) and any(depths)
    assert "the agent's search finds one at depth" in page.locator("#refutations thead").inner_text()


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
    page.locator("#refutations-wait").wait_for(timeout=SOLVER_WAIT_MS)
    assert page.locator("#refutations-wait").inner_text() == "solving the opponent's replies…"
    for _ in range(SOLVER_WAIT_MS // 100):  # the page's second ask reaches the route
        if held:
            break
        page.wait_for_timeout(100)
    assert held, "the page did not ask again"
    held[0].continue_()
    page.locator("#least-bad").wait_for(timeout=SOLVER_WAIT_MS)
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
        "(document.getElementById('refutations-wait') || {textContent: ''}).textContent.includes('step away')",
        timeout=SOLVER_WAIT_MS,
    )
    assert len(asked) == 5  # REFUTATION_ASKS in board.js
    assert page.locator("#least-bad").count() == 0


def test_keep_solving_settles_the_margins_the_first_answer_left_open(site, page):
    """At ply 12 of this line the Python solver needs about 10 CPU s for every move's margin, past the
    site's 5 s: the table comes with the results alone and the button; a click gives the margins up to
    5 minutes, and each one then agrees with the compiled solver's win or loss."""
    url, _ = site
    page.add_init_script("localStorage.setItem('values', 'on')")
    page.goto(url + "#/board?moves=A3,E5,E3,D1,B5,D5,C1,B4,C2,C5,E1,A2")
    button = page.locator("#keep-solving")
    button.wait_for(timeout=SOLVER_WAIT_MS)
    assert page.locator('#values table.values tbody tr[data-margin=""]').count() > 0
    button.click()
    page.wait_for_function(
        "(() => { const rows = [...document.querySelectorAll('#values table.values tbody tr')];"
        " return rows.length && rows.every(row => row.dataset.margin !== ''); })()",
        timeout=SOLVER_WAIT_MS,
    )
    rows = page.locator("#values table.values tbody tr").all()
    for row in rows:
        margin, wins = float(row.get_attribute("data-margin")), row.get_attribute("data-wins")
        assert (margin > 0) == (wins == "true"), (row.get_attribute("data-move"), margin, wins)
    assert page.locator("#keep-solving").count() == 0
