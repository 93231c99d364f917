"""littlego serve, through its HTTP routes: the runs it lists and how it reads them, the board's
rules, values and players, and its safety (nothing outside the runs folder, a 4xx with a
message for what it does not expect, no traceback, up after a crashing player or a solver
past its time). The pages in a real browser: tests/test_serve_browser.py."""

import json
import os
import random
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import warnings

import pytest

from engine.cli.littlego import main as littlego
from engine.common.runfolder import lock_holder
from engine.constants import PASS, WINNING_FIRST_POINT
from engine.data import SHIPPED_PARAMS
from engine.features import make_evaluator
from engine.params import load_params
from engine.play.match import run_match
from engine.play.settings import GameSettings
from engine.position import KO, SUICIDE, Position
from engine.search import Searcher
from engine.solver import Solver
from engine.ui.web.analysis import Analyst
from engine.ui.web.app import CONTENT_SECURITY_POLICY, LOOPBACK_NAMES, NO_TOKEN, STATIC, TOKEN_HEADER, create_app
from engine.ui.web.native_values import NativeValues
from engine.ui.web.worker_jobs import REFUTATION_DEPTH
from engine.ui.web.workers import Workers, WorkerTimeout
from evolve.loop import Evolution
from evolve.runs import read_generations
from tests.conftest import HANG, start_cli, wait_until

with warnings.catch_warnings():  # Starlette 1.0 would rather have httpx2, which works the same
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

TINY = """
name = "tiny"
seed = 7
population = 4
generations = 3
strategy = "ga"
depth = 1
jobs = 1

[ga]
hall_of_fame = 1

[[panel]]
opponent = "greedy"
games = 2
"""

# A game (Black from the book, White at random) whose ply-14 position the Python solver settles in
# a second or two: 5 of its 11 moves win, by 0.5 to 2.5 stones.
PLY14 = [12, 17, 11, 18, 13, 24, 6, 5, 16, 3, 10, 14, 7, 2]


def evolve_run(folder, generations=1):
    """A real run made by ``evolve`` under ``folder``/runs: its path."""
    config = os.path.join(str(folder), "tiny.toml")
    with open(config, "w") as handle:
        handle.write(TINY)
    return Evolution.create(
        config, runs_dir=os.path.join(str(folder), "runs"), jobs=1, progress=False, out=open(os.devnull, "w")
    ).run(stop_after=generations)


def match_report(run_dir):
    """A real ``littlego match --json`` report (greedy against random, with an SPRT) in the run folder."""
    summary, _ = run_match("greedy", "random", 4, GameSettings(jobs=1, progress=False), sprt=(0.0, 20.0))
    with open(os.path.join(run_dir, "vs-random.json"), "w") as handle:
        json.dump(summary.to_json(), handle)


def evolve_more(run_dir, generations=1):
    Evolution.resume(run_dir, jobs=1, progress=False, out=open(os.devnull, "w")).run(stop_after=generations)


def damaged_run(runs_dir, name="damaged-20260101-000000"):
    """A run folder whose generations.jsonl has a line cut short: its path."""
    path = os.path.join(str(runs_dir), name)
    os.makedirs(path)
    with open(os.path.join(path, "config.toml"), "w") as handle:
        handle.write('name = "damaged"\ngenerations = 3\n')
    with open(os.path.join(path, "generations.jsonl"), "w") as handle:
        handle.write('{"generation": 0, "best_fitness": [0.5, 1.0], "win_ra\n')
    return path


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    run_dir = evolve_run(folder)
    match_report(run_dir)
    runs_dir = os.path.dirname(run_dir)
    damaged_run(runs_dir)
    os.makedirs(os.path.join(runs_dir, "notes"))
    with open(os.path.join(str(folder), "secret.txt"), "w") as handle:
        handle.write("not for the browser")
    os.symlink(str(folder), os.path.join(runs_dir, "escape"))
    return runs_dir, run_dir


@pytest.fixture(scope="module")
def analyst():
    workers = Workers()
    found = Analyst(workers, seconds=20.0)
    yield found
    found.close()
    workers.close()


TOKEN = "a-secret-of-the-tests"


def board_client(runs_dir, analyst, base_url="http://127.0.0.1", **options):
    """A client of the app whose requests carry its token, as the page sends it."""
    client = TestClient(
        create_app(runs_dir, analyst, token=TOKEN, **options), base_url=base_url, raise_server_exceptions=False
    )
    client.headers[TOKEN_HEADER] = TOKEN
    return client


@pytest.fixture(scope="module")
def client(runs, analyst):
    return board_client(runs[0], analyst, base_url="http://127.0.0.1:8561", allow_programs=True)


@pytest.mark.fast
def test_the_runs_list_shows_a_run_made_by_evolve(client, runs):
    listed = {run["name"]: run for run in client.get("/api/runs").json()["runs"]}
    name = os.path.basename(runs[1])
    last = read_generations(runs[1])[-1]
    assert listed[name]["experiment"] == "tiny" and listed[name]["state"] == "stopped"
    assert listed[name]["generations"] == 1 and listed[name]["planned"] == 3  # generation 0 of 0..3
    assert (
        listed[name]["best_fitness"] == list(last.best_fitness) and listed[name]["executor"]["executor"] == "local pool"
    )
    assert listed[name]["started"][:4].isdigit() and listed[name]["problem"] is None
    assert listed["notes"]["state"] == "not a run" and "escape" not in listed


@pytest.mark.fast
def test_a_run_page_holds_its_generations_config_and_log_and_what_is_new(client, runs):
    name = os.path.basename(runs[1])
    page = client.get("/api/runs/" + name).json()
    assert page["total"] == 1 and [g["generation"] for g in page["generations"]] == [0]
    assert "individuals" not in page["generations"][0] and "best_weights" in page["generations"][0]
    assert 'name = "tiny"' in page["config"] and "evolve" in page["log"]
    (report,) = page["reports"]
    assert (report["file"], report["a"], report["b"], report["games"]) == ("vs-random.json", "greedy", "random", 4)
    assert report["sprt"]["lower"] < 0 < report["sprt"]["upper"] and report["sprt"]["elo1"] == 20
    assert client.get(f"/api/runs/{name}?after=1").json()["generations"] == []
    assert client.get(f"/api/runs/{name}?after=9").json()["restart"] is True
    assert client.get(f"/api/runs/{name}?after=x").status_code == 400


@pytest.mark.fast
def test_numbers_json_cannot_carry_are_shown_as_missing(client, tmp_path):
    run_dir = evolve_run(tmp_path)
    with open(os.path.join(run_dir, "all-won.json"), "w") as handle:
        handle.write('{"a": "champion", "b": "random", "games": 10, "wins": {"champion": 10}, "elo": Infinity}')
    page = TestClient(create_app(os.path.dirname(run_dir), None), base_url="http://127.0.0.1").get(
        "/api/runs/" + os.path.basename(run_dir)
    )
    assert page.status_code == 200 and page.json()["reports"][0]["elo"] is None


@pytest.mark.fast
def test_a_damaged_run_says_what_is_wrong_and_the_others_keep_working(client, runs):
    page = client.get("/api/runs/damaged-20260101-000000").json()
    assert page["summary"]["problem"].endswith("generations.jsonl:1: not a JSON line") and page["generations"] == []
    listed = {run["name"]: run for run in client.get("/api/runs").json()["runs"]}
    assert listed["damaged-20260101-000000"]["problem"] and listed[os.path.basename(runs[1])]["problem"] is None


@pytest.mark.fast
def test_the_runs_list_is_newest_first_across_experiments(tmp_path):
    def run(name, log=None):
        os.makedirs(str(tmp_path / name))
        (tmp_path / name / "config.toml").write_text('name = "{}"\n'.format(name.split("-")[0]))
        if log:
            (tmp_path / name / "run.log").write_text(log)

    run("zeta-20260301-120000")
    run("alpha-20260302-090000")
    run("alpha-20260302-090000-2")  # a second run begun in the same second
    run("beta-20260101-000000", log="2026-03-03 08:00:00,123 MainProcess INFO evolve: started\n")  # its log says
    run("notes")
    listed = TestClient(create_app(str(tmp_path), None), base_url="http://127.0.0.1").get("/api/runs").json()["runs"]
    assert [(r["name"], r["started"]) for r in listed] == [
        ("beta-20260101-000000", "2026-03-03 08:00:00"),
        ("alpha-20260302-090000-2", "2026-03-02 09:00:00"),
        ("alpha-20260302-090000", "2026-03-02 09:00:00"),
        ("zeta-20260301-120000", "2026-03-01 12:00:00"),
        ("notes", None),
    ]


def copied_run(runs_dir, name, generations):
    """A run folder named ``name`` with the config of the module's run and ``generations`` as its generations.jsonl."""
    path = os.path.join(str(runs_dir), name)
    os.makedirs(path)
    with open(os.path.join(path, "config.toml"), "w") as handle:
        handle.write(TINY)
    with open(os.path.join(path, "generations.jsonl"), "wb") as handle:
        handle.write(generations)
    return path


@pytest.mark.fast
def test_a_line_being_appended_is_left_out_and_a_damaged_line_before_the_last_is_named(runs, tmp_path):
    with open(os.path.join(runs[1], "generations.jsonl"), "rb") as handle:
        line = handle.read()  # generation 0's record and its newline
    second = line.replace(b'"generation": 0', b'"generation": 1')
    half = second[: len(second) // 2]
    client = TestClient(create_app(str(tmp_path), None), base_url="http://127.0.0.1")
    cases = [
        ("writing-20260101-000000", line + half, [0], None),
        ("first-20260101-000000", half, [], None),  # its first generation being written
        ("whole-20260101-000000", line + second[:-1], [0, 1], None),  # a last line complete but for its newline
        ("torn-20260101-000000", line + half + b"\n" + second, [], ":2: not a JSON line"),
    ]
    for name, generations, numbers, problem in cases:
        path = copied_run(tmp_path, name, generations)
        page = client.get("/api/runs/" + name).json()
        assert [g["generation"] for g in page["generations"]] == numbers, name
        assert page["summary"]["problem"] == (os.path.join(path, "generations.jsonl") + problem if problem else None)
    assert [r.generation for r in read_generations(str(tmp_path / "writing-20260101-000000"))] == [0]


@pytest.mark.fast
def test_a_run_is_running_while_a_live_process_holds_its_lock(tmp_path):
    run_dir = evolve_run(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time\n"
            "fd = os.open(sys.argv[1], os.O_RDWR)\nfcntl.lockf(fd, fcntl.LOCK_EX)\n"
            "print('held', flush=True)\ntime.sleep(60)",
            os.path.join(run_dir, "run.lock"),
        ],
        stdout=subprocess.PIPE,
        universal_newlines=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert lock_holder(run_dir) == holder.pid
        client = TestClient(create_app(os.path.dirname(run_dir), None), base_url="http://127.0.0.1")
        assert client.get("/api/runs").json()["runs"][0]["state"] == "running"
    finally:
        holder.kill()
        holder.wait()
    assert lock_holder(run_dir) is None
    evolve_more(run_dir, 3)  # looking never took the lock: the run goes on to its end
    assert client.get("/api/runs").json()["runs"][0]["state"] == "finished"


@pytest.mark.fast
@pytest.mark.parametrize(
    "path",
    [
        "/api/runs/..",
        "/api/runs/%2e%2e",
        "/api/runs/..%2fsecret.txt",
        "/api/runs/escape",
        "/api/runs/.hidden",
        "/api/runs/%2Fetc",
        "/api/runs/nothing",
        "/static/..%2fapp.py",
        "/static/%2e%2e/app.py",
        "/static/../../secret.txt",
    ],
)
def test_no_request_reaches_outside_the_runs_folder_and_the_assets(client, path):
    answer = client.get(path)
    assert answer.status_code == 404 and "not for the browser" not in answer.text
    assert "error" in answer.json() and "import" not in answer.text


@pytest.mark.fast
def test_requests_it_does_not_expect_get_a_4xx_with_a_message(client):
    def post(path, body, **headers):
        return client.post(path, content=body, headers=dict({"content-type": "application/json"}, **headers))

    cases = [
        (client.get("/admin"), 404, "nothing here"),
        (client.delete("/api/runs"), 405, "not answered"),
        (client.post("/api/board/view", content=b"{}", headers={"content-type": "text/plain"}), 415, "JSON"),
        (post("/api/board/view", b"{moves"), 400, "not JSON"),
        (post("/api/board/view", b"[]"), 400, "object"),
        (post("/api/board/view", b'{"moves": [12, 12]}'), 400, "occupied"),
        (post("/api/board/view", b'{"moves": [25]}'), 400, "not a point"),
        (post("/api/board/view", json.dumps({"moves": [PASS] * 30}).encode()), 400, "at most 24"),
        (post("/api/board/view", b"{}", host="attacker.example"), 403, "127.0.0.1"),
        (post("/api/board/view", b"{}", origin="http://attacker.example"), 403, "another site"),
        (post("/api/board/view", b"{}", **{"content-length": str(2**21)}), 413, "bytes"),
        (post("/api/board/reply", b'{"moves": [], "opponent": 3}'), 400, "player spec"),
        (post("/api/board/open", b'{"sgf": "(;GM[1]SZ[9])"}'), 400, "9x9"),
    ]
    for answer, status, words in cases:
        assert answer.status_code == status and words in answer.json()["error"], answer.text


@pytest.mark.fast
def test_a_failure_inside_is_a_500_with_a_message_not_a_traceback(runs):
    class Broken:
        def values(self, moves, margins=True, seconds=None):
            raise ZeroDivisionError("a bug")

    client = board_client(runs[0], Broken())
    answer = client.post("/api/board/values", json={"moves": []})
    assert answer.status_code == 500 and "ZeroDivisionError" in answer.json()["error"]
    assert "Traceback" not in answer.text and "a bug" not in answer.text


@pytest.mark.fast
def test_every_answer_carries_a_csp_that_forbids_inline_script(runs):
    """The page, its assets, the JSON routes, the refusals and a failure inside all carry the policy: the
    browser runs the page's own script files and nothing else, and reads no answer as another type."""

    class Broken:
        def values(self, moves, margins=True, seconds=None):
            raise ZeroDivisionError("a bug")

    client = board_client(runs[0], Broken())
    answers = [
        client.get("/"),
        client.get("/api/runs"),
        client.get("/api/runs/" + os.path.basename(runs[1])),
        client.get("/admin"),
        client.delete("/api/runs"),
        client.get("/", headers={"host": "attacker.example"}),
        client.post("/api/board/view", json={}, headers={TOKEN_HEADER: "not the token"}),
        client.post("/api/board/view", content=b"{moves", headers={"content-type": "application/json"}),
        client.post("/api/board/values", json={"moves": []}),
    ] + [client.get("/static/" + name) for name in sorted(os.listdir(STATIC))]
    assert {answer.status_code for answer in answers} == {200, 400, 403, 404, 405, 500}
    for answer in answers:
        assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, answer.url
        assert answer.headers["x-content-type-options"] == "nosniff", answer.url
    directives = dict(directive.split(" ", 1) for directive in CONTENT_SECURITY_POLICY.split("; "))
    assert directives["default-src"] == "'none'" and directives["script-src"] == "'self'"
    assert directives["style-src"] == "'self'" and "unsafe" not in CONTENT_SECURITY_POLICY


@pytest.mark.fast
def test_the_pages_hold_nothing_the_csp_refuses_and_one_module_writes_html():
    """No inline script, handler, style or javascript: URL in the page; only static/html.js, which escapes
    every value, puts HTML into it."""
    index = open(os.path.join(STATIC, "index.html"), encoding="utf-8").read()
    assert re.findall(r"<script\b[^>]*>", index) == ['<script type="module" src="/static/main.js">']
    writes_html = "|".join(
        (r"\.innerHTML", r"\.outerHTML", r"\.insertAdjacentHTML", r"document\.write", r"\beval\(", "new Function")
        + (r"\son[a-z]+ *=", "style *=", "javascript:")  # a handler, a style, a script URL in markup
    )
    assert not re.search(writes_html, index, re.IGNORECASE)
    scripts = [name for name in os.listdir(STATIC) if name.endswith(".js")]
    assert "html.js" in scripts
    for name in scripts:
        text = open(os.path.join(STATIC, name), encoding="utf-8").read()
        found = re.findall(writes_html, text)
        assert found == ([".innerHTML"] if name == "html.js" else []), name


def first_position(rng, verdict):
    """(moves, point) of a random game's first position with an empty point the rules forbid by ``verdict``."""
    while True:
        position, moves = Position.initial(), []
        while not position.is_over:
            for point in range(25):
                if position.colour_at(point) == 0 and position.verdict(point) == verdict:
                    return moves, point
            move = rng.choice(position.all_moves())
            position, moves = position.play_point(move), moves + [move]


@pytest.mark.fast
@pytest.mark.parametrize("verdict, words", [(SUICIDE, "is suicide"), (KO, "is a KO recapture")])
def test_an_illegal_move_is_refused_with_the_rule_that_forbids_it(client, verdict, words):
    moves, point = first_position(random.Random(5), verdict)
    answer = client.post("/api/board/play", json={"moves": moves, "move": point})
    assert answer.status_code == 422 and answer.json()["illegal"] and answer.json()["error"].endswith(words)
    occupied = client.post("/api/board/play", json={"moves": [12], "move": 12}).json()
    assert occupied["error"] == "2,2 is occupied"
    played = client.post("/api/board/play", json={"moves": [12], "move": 7}).json()
    assert played["moves"] == [12, 7] and played["points"][7] == 2 and played["player"] == "black"


def test_the_board_values_are_the_solvers(client):
    exact = Solver().move_values(position_of(PLY14))
    quick = client.post("/api/board/values", json={"moves": PLY14, "margins": False}).json()
    assert (
        quick["exact"]
        and quick["more"]
        and {v["move"]: v["wins"] for v in quick["moves"]} == {move: margin > 0 for move, margin in exact.items()}
        and all(v["margin"] is None for v in quick["moves"])
    )
    values = client.post("/api/board/values", json={"moves": PLY14}).json()
    assert values["exact"] and not values["more"] and {v["move"]: v["margin"] for v in values["moves"]} == exact
    assert all(v["wins"] == (v["margin"] > 0) for v in values["moves"])


def position_of(moves):
    position = Position.initial()
    for move in moves:
        position = position.play_point(move)
    return position


def test_past_its_time_the_search_values_show_while_the_solver_goes_on_until_its_patience(analyst):
    quick = Analyst(analyst.workers, seconds=0.2)
    try:
        values = quick.values([12, 7, 13])
    finally:
        quick.close()
    assert values.pending and not values.exact and values.depth >= 1 and "solving" in values.note
    assert len(values.moves) == len(position_of([12, 7, 13]).legal_points()) + 1
    assert all(v.value is not None and v.wins is None for v in values.moves)
    native = NativeValues(0.2, patience=1.0)
    try:
        assert native.results(position_of([12, 7])) == (None, True)  # the empty-ish board: it goes on
        time.sleep(1.5)
        assert native.results(position_of([12, 7])) == (None, False)  # past its patience: given up
        native.seconds = 60
        assert native.results(position_of(PLY14))[0] is not None  # and the next question is answered
    finally:
        native.close()


@pytest.mark.slow
def test_a_position_solved_past_the_boards_time_turns_exact_when_asked_again(native):
    workers = InProcessWorkers()
    board = Analyst(workers, seconds=0.01)
    try:
        values = board.values(PLY14[:6], margins=False)
        assert values.pending and not values.exact
        for _ in range(3000):
            if not values.pending:
                break
            values = board.values(PLY14[:6], margins=False)
    finally:
        board.close()
    assert values.exact and not values.pending
    assert {v.move: v.wins for v in values.moves} == native.move_results(position_of(PLY14[:6]))
    assert workers.calls == ["the agent's search"]  # searched once while the solver worked, not at each ask


class InProcessWorkers:
    """Workers that run each call in this process, keeping what each was for."""

    def __init__(self):
        self.calls = []

    def call(self, what, function, args, seconds, topic=None):
        self.calls.append(what)
        return function(*args)


def test_the_margins_a_board_solved_are_shown_from_the_store_without_solving_them_again(native, tmp_path):
    path = str(tmp_path / "solved.sqlite")
    first, again = InProcessWorkers(), InProcessWorkers()
    board = Analyst(first, seconds=20.0, store=path)
    try:
        solved = board.values(PLY14)
    finally:
        board.close()
    assert first.calls == ["the exact solver"] and solved.note == "exact: the final stone margin of each move"
    board = Analyst(again, seconds=20.0, store=path)
    try:
        stored = board.values(PLY14)
        assert board.native.solver is None  # the wins and losses came from the store too
    finally:
        board.close()
    assert again.calls == [] and stored.note == solved.note
    assert sorted(stored.moves, key=str) == sorted(solved.moves, key=str)
    assert sum(value.wins for value in stored.moves) == 5  # as PLY14 is described


def test_the_agent_move_with_how_it_chose_it(client):
    first = client.post("/api/board/agent", json={"moves": []}).json()
    assert (first["move"], first["how"]) == (WINNING_FIRST_POINT, "first") and WINNING_FIRST_POINT == 12  # 2,2
    book = client.post("/api/board/agent", json={"moves": [12, 7]}).json()
    assert (
        book["how"] == "book" and book["move"] == client.post("/api/board/view", json={"moves": [12, 7]}).json()["book"]
    )
    searched = client.post("/api/board/agent", json={"moves": [12, 7, 17]}).json()
    assert (
        searched["how"] == "search"
        and searched["depth"] >= 1
        and searched["move"] in position_of([12, 7, 17]).all_moves()
    )


@pytest.mark.slow
def test_from_its_solving_ply_the_agent_keeps_a_won_game_won_and_searches_a_lost_one(client):
    margins = Solver().move_values(position_of(PLY14))
    won = client.post("/api/board/agent", json={"moves": PLY14}).json()
    assert won["how"] == "solver" and margins[won["move"]] > 0 and won["seconds"] >= 0
    assert won["value"] in (None, max(margins.values()))  # the margin, where settled within its budget
    lost_moves = PLY14 + [won["move"]]  # White to move, every move losing
    lost = client.post("/api/board/agent", json={"moves": lost_moves}).json()
    assert lost["how"] == "search" and lost["depth"] >= 1 and lost["move"] in position_of(lost_moves).all_moves()


def killed_job():
    os.kill(os.getpid(), signal.SIGKILL)


def test_a_crashing_or_hanging_player_leaves_the_server_up(client, tmp_path):
    agent = tmp_path / "agent"
    agent.mkdir()
    (agent / "my_player3.py").write_text("raise SystemExit('I crash')\n")
    crashed = client.post("/api/board/reply", json={"moves": [12], "opponent": f"cmd:{agent}"})
    assert crashed.status_code == 502 and "gave no legal move" in crashed.json()["error"]
    workers = Workers(1)
    try:
        with pytest.raises(WorkerTimeout, match="gave no answer within 1 s"):
            workers.call("a job that hangs", time.sleep, (60,), 1)
        assert workers.call("a sum", sum, ([1, 2],), 60) == 3
    finally:
        workers.close()
    answer = client.post("/api/board/reply", json={"moves": [12], "opponent": "random", "seed": 4}).json()
    assert answer["view"]["moves"] == [12, answer["reply"]["move"]]


@pytest.mark.fast
@pytest.mark.parametrize(
    "spec, words",
    [
        ("grandmaster", "unknown player 'grandmaster' (known: random,"),
        ("handset@99", "player 'handset@99': the depth after '@' is an integer"),
        ("gnugo:11", "player 'gnugo:11': the GNU Go level is an integer 0..10"),
    ],
)
def test_a_spec_the_parser_refuses_is_the_users_mistake_with_the_parsers_message(client, spec, words):
    answer = client.post("/api/board/reply", json={"moves": [12], "opponent": spec})
    assert answer.status_code == 400 and words in answer.json()["error"], answer.text


def test_a_killed_worker_is_answered_at_once_and_replaced_for_the_next_request(runs):
    workers = Workers(1)

    class Killed:
        def agent(self, moves):
            return workers.call("the shipped agent", killed_job, (), 60)

    client = board_client(runs[0], Killed())
    try:
        start = time.time()
        answer = client.post("/api/board/agent", json={"moves": [12]})
        assert answer.status_code == 503 and "the shipped agent was killed or crashed" in answer.json()["error"]
        assert time.time() - start < 30  # not the job's 60 s
        assert workers.call("a sum", sum, ([1, 2],), 60) == 3  # a fresh pool
    finally:
        workers.close()


@pytest.mark.fast
def test_closed_workers_leave_no_pool_thread_to_race_the_exit():
    # The pool's manager thread, left running, closed its wake-up pipe while the interpreter's exit wrote to it:
    # "Exception ignored in: <module 'threading'> ... OSError: [Errno 9]" when Ctrl-C stopped the server.
    for _ in range(3):
        workers = Workers(1)
        assert workers.call("a sum", sum, ([1, 2],), 60) == 3
        manager = workers.pool._executor_manager_thread
        workers.close()
        assert manager is not None and not manager.is_alive()


@pytest.mark.fast
@pytest.mark.parametrize("hosts, base_url", [(None, "http://192.0.2.1"), (LOOPBACK_NAMES, "http://127.0.0.1")])
def test_players_that_run_commands_are_refused_unless_the_person_who_started_it_allowed_them(
    runs, tmp_path, hosts, base_url
):
    client = board_client(runs[0], None, base_url=base_url, hosts=hosts)
    planted = tmp_path / "planted"
    for spec in (f"gtp:touch {planted}", f"cmd:{tmp_path}::touch {planted}", f"program:{tmp_path}", str(tmp_path)):
        answer = client.post("/api/board/reply", json={"moves": [], "opponent": spec})
        assert answer.status_code == 400 and "--allow-programs" in answer.json()["error"], answer.text
    assert not planted.exists()


@pytest.mark.fast
def test_a_request_that_plays_without_the_token_is_refused(runs):
    client = board_client(runs[0], None, allow_programs=True)
    for headers in ({TOKEN_HEADER: ""}, {TOKEN_HEADER: "a guess"}):
        answer = client.post("/api/board/view", json={"moves": []}, headers=headers)
        assert answer.status_code == 403 and answer.json()["error"] == NO_TOKEN
    assert client.post("/api/board/view", json={"moves": []}).status_code == 200  # with it
    tokenless = TestClient(create_app(runs[0], None), base_url="http://127.0.0.1")
    assert tokenless.post("/api/board/view", json={"moves": []}, headers={TOKEN_HEADER: ""}).status_code == 403


@pytest.mark.skipif(
    os.geteuid() != 0 or not os.path.exists("/usr/bin/python3"), reason="needs root and a system Python"
)
def test_serve_run_by_root_plays_no_command_for_another_local_user(tmp_path):
    """Another user of the machine reaches the loopback port but not the printed address: with or without
    --allow-programs, its gtp: opponent is refused and its command never runs."""
    planted = tmp_path / "planted-by-nobody"
    os.chmod(tmp_path, 0o777)
    request = (
        "import json, sys, urllib.request, urllib.error\n"
        f"body = json.dumps({{'moves': [], 'opponent': 'gtp:touch {planted}'}}).encode()\n"
        "req = urllib.request.Request(sys.argv[1] + 'api/board/reply', body, {'Content-Type': 'application/json'})\n"
        "try:\n    urllib.request.urlopen(req)\nexcept urllib.error.HTTPError as e:\n    print(e.code)\n"
    )
    for options in ([], ["--allow-programs"]):
        server = start_cli("littlego", "serve", "--port", "0", "--runs", str(tmp_path), *options)
        try:
            line = server.stdout.readline()
            url = line.split(" the board at ")[1].split(" ")[0]
            base = url.split("?")[0]
            seen = subprocess.run(
                [
                    "setpriv",
                    "--reuid=65534",
                    "--regid=65534",
                    "--clear-groups",
                    "/usr/bin/python3",
                    "-c",
                    request,
                    base,
                ],
                capture_output=True,
                text=True,
                timeout=HANG,
            )
            assert seen.stdout.strip() == "403", seen.stdout + seen.stderr
        finally:
            server.terminate()
            server.wait(30)
    assert not planted.exists()


@pytest.mark.fast
def test_sgf_out_and_back_in(client):
    sgf = client.post("/api/board/sgf", json={"moves": PLY14, "black": "you", "white": "random"}).json()["sgf"]
    opened = client.post("/api/board/open", json={"sgf": sgf}).json()
    assert opened["moves"] == PLY14 and opened["black"] == "you" and opened["white"] == "random"
    for moves, result in (([12, PASS, PASS], "W+1.5"), ([12, PASS, 7, PASS, 17, PASS, PASS], "B+0.5")):
        finished = client.post("/api/board/sgf", json={"moves": moves}).json()["sgf"]
        assert client.post("/api/board/open", json={"sgf": finished}).json()["result"] == result
        assert client.post("/api/board/view", json={"moves": moves}).json()["verdict"].endswith(f"({result})")
    setup = client.post("/api/board/open", json={"sgf": "(;GM[1]FF[4]SZ[5]AB[cc]PL[W];W[bb])"})
    assert setup.status_code == 400 and "set-up stones" in setup.json()["error"]


@pytest.mark.fast
def test_the_command_refuses_a_busy_port_and_a_file_as_runs_folder(tmp_path, capsys):
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        assert littlego(["serve", "--runs", str(tmp_path), "--port", str(busy.getsockname()[1])]) == 2
    finally:
        busy.close()
    (tmp_path / "file").write_text("")
    assert littlego(["serve", "--runs", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert "littlego serve: " in err and "in use" in err and "names a file" in err and "Traceback" not in err


def test_the_command_serves_at_the_address_it_prints_and_ctrl_c_stops_it(tmp_path):
    server = start_cli("littlego", "serve", "--runs", tmp_path, "--port", "0")
    try:
        line = server.stdout.readline()
        url = line.split(" the board at ")[1].split()[0]
        assert url.startswith("http://127.0.0.1:") and "/?token=" in url
        base = url.split("?")[0]
        for _ in range(100):  # the socket listens before uvicorn answers
            try:
                with urllib.request.urlopen(base + "api/runs", timeout=HANG) as answer:
                    assert json.loads(answer.read().decode("utf-8"))["runs"] == []
                break
            except urllib.error.URLError:
                time.sleep(0.1)
        with urllib.request.urlopen(url, timeout=HANG) as answer:
            assert b"/static/main.js" in answer.read()
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=HANG)
    # uvicorn stops gracefully, then (in its newer versions) hands the interrupt back: "interrupted", 130.
    assert server.returncode in (0, 130) and "Traceback" not in err, err


LOST14 = [10, 4, 14, 23, 1, 3, 22, 6, 17, 2, 24, 15, 8, 0]  # at ply 14 every move of the side to move loses


@pytest.mark.slow
def test_a_lost_position_names_the_least_bad_move_and_how_hard_each_is_to_answer(client):
    position = position_of(LOST14)
    assert all(margin < 0 for margin in Solver().move_values(position).values())
    expected, keeps = {}, {}
    for move in position.all_moves():
        child = position.play_point(move)
        replies = {} if child.is_over else Solver().move_values(child)
        expected[move] = (sum(1 for margin in replies.values() if margin > 0), len(replies))
        keeps[move] = {reply for reply, margin in replies.items() if margin > 0}
    found = client.post("/api/board/refutations", json={"moves": LOST14}).json()
    assert found["lost"] is True and found["complete"] and found["deepest"] == REFUTATION_DEPTH
    assert {row["move"]: (row["keeping"], row["replies"]) for row in found["moves"]} == expected
    # each move's depth: the Python search (the compiled one's twin) picks a reply that keeps the opponent's
    # win at that depth and at no shallower one
    params = load_params(SHIPPED_PARAMS)
    for row in found["moves"]:
        child = position.play_point(row["move"])
        if child.is_over:
            assert row["depth"] is None
            continue
        searcher = Searcher(make_evaluator(params.weights, params.endgame))
        deepest = row["depth"] or REFUTATION_DEPTH  # searched no deeper than needed: depth 6 is slow in Python
        picks = [searcher.search(child, depth).move in keeps[row["move"]] for depth in range(1, deepest + 1)]
        assert row["depth"] == (picks.index(True) + 1 if True in picks else None)
    assert any(row["depth"] for row in found["moves"])
    share = {move: keeping / replies if replies else 1.0 for move, (keeping, replies) in expected.items()}
    assert share[found["least_bad"]] == min(share.values())
    assert [row["move"] for row in found["moves"]][0] == found["least_bad"]
    won = client.post("/api/board/refutations", json={"moves": PLY14}).json()  # the side to move can win here
    assert won["lost"] is False and won["moves"] == []


@pytest.mark.slow
def test_keep_solving_gives_the_margins_the_time_the_board_did_not(native):
    board = Analyst(InProcessWorkers(), seconds=0.05)
    moves = PLY14[:13]  # the Python solver needs a few CPU seconds for its margins
    try:
        values = board.values(moves)
        for _ in range(3000):  # the compiled solver's wins and losses first
            if not values.pending:
                break
            values = board.values(moves)
        assert values.exact and all(v.margin is None for v in values.moves)
        assert "the margins were not settled within 0.05 s of CPU" in values.note
        kept = board.values(moves, seconds=60)  # the page's "keep solving"
    finally:
        board.close()
    assert kept.exact and all(v.margin is not None and (v.margin > 0) == v.wins for v in kept.moves)
    assert {v.move: v.wins for v in kept.moves} == native.move_results(position_of(moves))


@pytest.mark.fast
@pytest.mark.parametrize("seconds", [0, -3, True, "ten"])
def test_keep_solving_refuses_a_time_that_is_not_a_positive_number(client, seconds):
    answer = client.post("/api/board/values", json={"moves": PLY14, "seconds": seconds})
    assert answer.status_code == 400 and "seconds must be a positive number" in answer.json()["error"]


def _until(condition):
    """Wait for ``condition()``, polling, until it is true (a hang: the test's timeout names it)."""
    wait_until(condition, "the condition", poll=0.01)


def test_a_newer_position_drops_the_questions_no_worker_has_begun():
    """The board's questions about a position the page has left wait behind nothing new: once a question
    about another position comes, those no process has begun are dropped, and their callers are told."""
    from concurrent.futures import ThreadPoolExecutor

    from engine.ui.web.workers import WorkerSuperseded

    workers = Workers(1)
    try:
        with ThreadPoolExecutor(7) as callers:  # a thread for each caller, all waiting at once
            # The one process busy for a while: the questions below wait behind it.
            busy = callers.submit(workers.call, "busy", time.sleep, (5.0,), 120, ("old",))
            queued = [callers.submit(workers.call, "old", str, (n,), 120, ("old",)) for n in range(5)]
            _until(lambda: len(workers.waiting) == 6)  # every question asked, none of the queued begun
            newer = callers.submit(workers.call, "new", str, ("new",), 120, ("new",))
            _until(lambda: workers.waiting[-1][0] == ("new",))
            assert busy.result() is None and newer.result() == "new"
            outcomes = [future.exception() for future in queued]
    finally:
        workers.close()
    dropped = [error for error in outcomes if isinstance(error, WorkerSuperseded)]
    # A process pool hands a question or two to its process's queue ahead of time: those run.
    assert len(dropped) >= 3 and all(error is None or isinstance(error, WorkerSuperseded) for error in outcomes)


def test_refutations_of_an_early_position_come_from_the_prefill_and_a_late_one_stops_in_time(native):
    """After Black's 2,2 every White move loses: each one's replies are in the package's prefill (ply 2),
    so every move is answered at once. Past the prefill (plies 0-4), at ply 5, the compiled solver needs
    seconds a move: the job is stopped at its deadline, within a move, with the moves it reached."""
    from engine.ui.web.worker_jobs import refutations_job

    first = refutations_job([WINNING_FIRST_POINT], 8.0)
    position = Position.initial().play_point(WINNING_FIRST_POINT)
    assert len(first) == len(position.legal_points()) + 1
    assert all(found.keeping >= 1 for found in first.values())  # every White move is refuted
    start = time.process_time()
    line = [WINNING_FIRST_POINT, 0, 24, 1, 23]
    late = refutations_job(line, 0.5)
    assert len(late) < len(position_of(line).all_moves())
    assert time.process_time() - start < 30  # this process's CPU: the solver ran in its own, and was stopped
