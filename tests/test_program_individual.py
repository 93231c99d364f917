"""A program individual: the example student agent's own weights evolved, played and exported.

The example is ``examples/student-agent`` (a Python agent reading ``weights.json``); the config
tests use copies of it so that each can break one thing.
"""

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.cli.littlego import main
from engine.cli.parts.arguments import sandbox_limits
from engine.common.runfolder import RunError
from engine.constants import BLACK
from engine.coords import to_point
from engine.players.host import format_input
from engine.players.specs import make_player
from engine.position import Position
from engine.sandbox.isolation import strict_refusal
from engine.sandbox.limits import MODES, SandboxMode
from evolve.agents.program_individual import fingerprint, program_built, sidecar_of
from evolve.agents.program_player import program_player
from evolve.config import Config, ConfigError, load_config, validate
from evolve.fitness import FitnessGame, play_job
from evolve.loop import Evolution
from evolve.rounds import fold
from evolve.runs import export_best, original_win_rate, program_of, read_generations
from evolve.verdict import verdict_of, verdict_words
from tests.conftest import HANG, ROOT, cli

EXAMPLE = os.path.join(ROOT, "examples", "student-agent")
WEIGHTS = {"liberties": 0.2, "atari": 1.0, "edge": -0.3, "centre": 0.3}

TINY = """
name = "tiny-program"
seed = 11
population = 3
generations = 1
strategy = "ga"
jobs = 2

[ga]
hall_of_fame = 1

[start]
random = 1.0

[individual]
program = "{program}"
weights_file = "weights.json"

[individual.bounds]
liberties = [-1.0, 1.0]
atari = [-3.0, 3.0]
edge = [-1.0, 1.0]
centre = [-1.0, 1.0]

[[panel]]
opponent = "greedy"
games = 2
random_opening = 2
"""


def agent_copy(tmp_path, weights=WEIGHTS):
    """A copy of the example agent, with ``weights`` (None: no weights file) in its weights.json."""
    folder = tmp_path / "agent"
    shutil.copytree(EXAMPLE, str(folder))
    os.unlink(str(folder / "weights.json"))
    if weights is not None:
        (folder / "weights.json").write_text(json.dumps(weights))
    return folder


def write_config(tmp_path, text=TINY, program=None):
    path = tmp_path / "tiny.toml"
    path.write_text(text.replace("{program}", str(program or EXAMPLE)))
    return str(path)


def first_move(program, weights):
    """The course text of the agent's first move on the empty board with ``weights``."""
    player = program_player(program, weights, "test")
    try:
        player.new_game(BLACK, 0)
        point = player.move(Position.initial())
    finally:
        player.close()
    return divmod(point, 5)


@pytest.mark.fast
def test_a_verdict_is_better_or_worse_only_where_its_interval_leaves_out_a_half():
    undecided = verdict_of([(1, 3, 0)] * 22 + [(0, -3, 0)] * 17 + [(0, -9, 1)])
    assert (undecided.games, undecided.wins, undecided.faults, undecided.decided) == (40, 22, 1, "undecided")
    line = verdict_words(undecided, "program:a:best.json:weights.json", "cmd:a")
    assert line.startswith("verdict: the tuned agent won 22 of 40 games against the original (1 lost by its own ")
    assert "(55.0%, 95% interval 39.8-69.3%, +35 +/- 112 Elo;" in line and line.endswith(
        "undecided; a sequential test decides it: littlego match program:a:best.json:weights.json cmd:a "
        "--random-opening 2 --sprt 0,20 --games 2000"
    )
    assert verdict_of([(1, 3, 0)] * 30 + [(0, -3, 0)] * 10).decided == "better"
    assert verdict_of([(0, -3, 0)] * 40).decided == "worse"
    assert verdict_of([(0, -3, 0)] * 40).elo is None  # one-sided: no finite Elo
    lopsided = verdict_of([(1, 3, 0)] * 3 + [(0, -3, 0)] * 17)  # the interval reaches 0: no finite margin
    assert lopsided.elo is not None and lopsided.margin is None
    assert "(15.0%, 95% interval 5.2-36.0%, -301 Elo;" in verdict_words(lopsided, "a", "b")
    assert "Infinity" not in json.dumps(lopsided._asdict())
    assert "sequential" not in verdict_words(verdict_of([(1, 1, 0)] * 40), "a", "b")


@pytest.mark.fast
def test_the_example_configs_are_valid_and_start_from_the_agents_own_file(monkeypatch):
    monkeypatch.chdir(ROOT)  # their paths are relative to where evolve runs: the root
    config = load_config(os.path.join(EXAMPLE, "evolve.toml"))
    assert config.genes == ("liberties", "atari", "edge", "centre")  # in the order written
    assert config.start.weights == (tuple(WEIGHTS[name] for name in config.genes),)
    assert config.individual.base == WEIGHTS
    assert load_config(os.path.join(EXAMPLE, "bench.toml")).genes == config.genes


@pytest.mark.slow
def test_each_game_writes_its_weights_into_its_own_copy_and_they_are_played(tmp_path):
    config = load_config(write_config(tmp_path))
    before = open(os.path.join(EXAMPLE, "weights.json")).read()
    with program_built(config) as program:
        # Sabotage: a centre worth far less than the edge sends the first stone to the edge.
        assert first_move(program, [0.2, 1.0, -0.3, 0.3]) == (1, 1)
        assert first_move(program, [0.0, 0.0, 1.0, -1.0]) in [(0, j) for j in range(5)] + [(i, 0) for i in range(5)]
        one, two = program_player(program, [0.5, 1, 0, 0], "one"), program_player(program, [-0.5, 2, 0, 0], "two")
        try:
            one.new_game(BLACK, 0)
            two.new_game(BLACK, 0)
            assert one.workdir != two.workdir and program.folder not in (one.workdir, two.workdir)
            assert json.load(open(os.path.join(one.workdir, "weights.json")))["liberties"] == 0.5
            assert json.load(open(os.path.join(two.workdir, "weights.json")))["liberties"] == -0.5
        finally:
            one.close()
            two.close()
        job = FitnessGame(0, (0.2, 1.0, -0.3, 0.3), "greedy", 0, 0, 5, 6, 2, 2, "python", program)
        assert play_job(job) == play_job(job)  # the same weights, opponent and seed: the same game
    assert open(os.path.join(EXAMPLE, "weights.json")).read() == before  # the source is never written


@pytest.mark.slow
def test_evolve_run_and_export_the_example_agents_weights(tmp_path):
    config = write_config(tmp_path)
    process = cli("evolve", "run", config, "--runs-dir", tmp_path / "runs", "--no-progress", timeout=HANG)
    assert process.returncode == 0, process.stderr
    assert "the individual: " in process.stdout
    assert "searched by the program's own code, each move a process of the agent's" in process.stdout
    assert "native searcher" not in process.stdout
    # What the run costs, said before its first generation's line: 3 individuals, the same games each.
    cost = re.search(
        r"cost, from the first 4 games: (\d+) games in this generation \((\d+) an individual\)", process.stdout
    )
    assert cost and int(cost.group(1)) == 3 * int(cost.group(2)), process.stdout
    assert cost.start() < process.stdout.index("gen   0") and "for the 2 generations to play" in process.stdout
    assert "and the verdict's 40 games" in process.stdout
    run = os.path.join(str(tmp_path / "runs"), os.listdir(str(tmp_path / "runs"))[0])
    # The run ends with the best against the agent it began from: 40 fresh games, said and kept.
    verdict = json.load(open(os.path.join(run, "verdict.json")))
    assert verdict["games"] == 40 and 0 <= verdict["wins"] <= 40
    verdict_line = r"verdict: the tuned agent won (\d+) of 40 games against the original [^:]*: (\w+)"
    said = re.search(verdict_line, process.stdout)
    assert said and int(said.group(1)) == verdict["wins"] and said.group(2) in ("better", "worse", "undecided")
    assert process.stdout.index("verdict: ") > process.stdout.index("gen   1")
    records = read_generations(run)
    assert [r.generation for r in records] == [0, 1]
    first = [tuple(ind["weights"]) for ind in records[0].individuals]
    assert first[0] == tuple(WEIGHTS[name] for name in ["liberties", "atari", "edge", "centre"])
    # The plots start from the original: its generation 0 win rate, drawn across the fitness plot.
    assert original_win_rate(run, records) == records[0].individuals[0]["fitness"][0]
    assert len(set(first)) == len(first)  # every individual its own weights
    assert set(records[-1].best_weights) == set(WEIGHTS)
    assert program_of(run).weights_file == "weights.json"
    assert json.load(open(os.path.join(run, "best-weights.json"))) == records[-1].best_weights
    with pytest.raises(ValueError, match="--depth is our searcher.s"):
        export_best(run, str(tmp_path / "nope.json"), depth=4)
    folder = agent_copy(tmp_path)
    assert f"| evolve export {run} --to " in process.stdout  # the next step it names
    refused = cli("evolve", "ship", run)
    assert refused.returncode == 2 and "evolve ship ships this project's agent" in refused.stderr
    before_export = (folder / "weights.json").read_text()
    signature = fingerprint(str(folder), "weights.json")
    exported = cli("evolve", "export", run, "--to", folder / "weights.json")
    assert exported.returncode == 0 and "weights.provenance.json" in exported.stdout, exported.stderr
    kept = [name for name in os.listdir(folder) if name.startswith("weights.before-") and name.endswith(".json")]
    assert len(kept) == 1 and f"the file it replaced is kept as {folder / kept[0]}" in exported.stdout
    assert (folder / kept[0]).read_text() == before_export  # nothing an export replaces is lost
    assert fingerprint(str(folder), "weights.json") == signature  # what export wrote is no change of the code
    written = export_best(run, str(folder / "weights.json"))
    assert written.sidecar == str(folder / "weights.provenance.json")
    provenance = json.load(open(written.sidecar))["provenance"]
    assert provenance["generation"] == 1 and provenance["program"] == str(EXAMPLE)
    loaded = subprocess.run(
        [sys.executable, "-c", "import json, my_player3; print(json.dumps(my_player3.load_weights()))"],
        cwd=str(folder),
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout
    assert json.loads(loaded) == records[-1].best_weights
    position = Position.initial().play_point(to_point(2, 2))
    (folder / "input.txt").write_text(
        format_input(position.player, position.previous_string(), position.board_string())
    )
    subprocess.run([sys.executable, "my_player3.py"], cwd=str(folder), check=True, timeout=HANG)
    i, j = map(int, (folder / "output.txt").read_text().split(","))
    assert to_point(i, j) in position.legal_points()


@pytest.mark.fast
def test_a_broken_agent_stops_the_run_before_any_game(tmp_path):
    folder = agent_copy(tmp_path)
    (folder / "my_player3.py").write_text("raise SystemExit('no board for me')\n")
    config = load_config(write_config(tmp_path, program=folder))
    with pytest.raises(RunError, match="cannot play a first move.*no board for me"):
        with program_built(config):
            pass


def test_a_run_that_fails_before_its_first_generation_leaves_no_run_folder(tmp_path):
    folder = agent_copy(tmp_path)
    (folder / "my_player3.py").write_text("raise SystemExit('no board for me')\n")
    config = write_config(tmp_path, program=folder)
    failed = cli("evolve", "run", config, "--runs-dir", tmp_path / "runs", "--no-progress", timeout=HANG)
    assert failed.returncode == 2 and "no board for me" in failed.stderr, failed.stderr
    assert os.listdir(tmp_path / "runs") == []  # no orphan to resume "after generation -1"
    assert "no generation finished: " in failed.stderr and "removed (it holds nothing to resume)" in failed.stderr


@pytest.mark.slow
def test_a_game_lost_by_the_agents_fault_is_a_loss_and_said(tmp_path, caplog):
    folder = agent_copy(tmp_path)
    script = (folder / "my_player3.py").read_text()
    # Fine on the empty board (the run's first move), a crash on any other.
    (folder / "my_player3.py").write_text(
        script.replace(
            "    colour, previous, current = read_input()\n",
            ("    colour, previous, current = read_input()\n    if any(current):\n        raise SystemExit('lost')\n"),
        )
    )
    config = load_config(write_config(tmp_path, program=folder))
    faults = tmp_path / "faults"
    with program_built(config, faults=str(faults)) as program:
        win, _, fault = play_job(FitnessGame(0, (0.2, 1.0, -0.3, 0.3), "greedy", 0, 0, 5, 6, 2, 2, "python", program))
    assert (win, fault) == (0.0, 1.0)
    assert "individual 0 lost game 0 (seed 5) by its fault: Black exited with status 1" in caplog.text
    # The faulting move is kept: its input.txt, the folder as submitted (the individual's weights written in)
    # and the command that plays that folder on that input again, in the sandbox.
    (kept,) = faults.iterdir()
    assert f"(the move is kept in {kept}: sh {kept}/replay.sh plays it again)" in caplog.text
    assert "lost" in (kept / "stderr.txt").read_text()
    assert json.loads((kept / "submitted" / "weights.json").read_text())["atari"] == 1.0
    lines = (kept / "input.txt").read_text().split()
    assert lines[0] == "1" and any(c != "0" for c in "".join(lines[6:11]))  # Black, stones on the board
    again = subprocess.run(["sh", str(kept / "replay.sh"), "--sandbox", "auto"], capture_output=True, text=True)
    assert again.returncode == 1 and "lost" in again.stderr, again.stderr
    jobs = [FitnessGame(k // 2, (0.0,) * 4, "greedy", 0, k % 2, 5, 6, 2, 2, "python", program) for k in range(4)]
    reports = [
        report
        for _, report in fold(jobs, [(0.0, -3.0, 1.0), (0.0, -1.0, 1.0), (1.0, 2.0, 0.0), (0.0, -1.0, 0.0)], 2, [1.0])
    ]
    assert [report["faults"] for report in reports] == [2, 0]


@pytest.mark.slow
def test_a_weight_the_agents_code_never_reads_is_named_at_the_start(tmp_path, capsys):
    folder = agent_copy(tmp_path)
    script = (folder / "my_player3.py").read_text()
    (folder / "my_player3.py").write_text(script.replace('"centre"', '"center"'))  # a typo in the code
    config = load_config(write_config(tmp_path, program=folder))
    with program_built(config):
        pass
    said = capsys.readouterr().err
    assert "your agent's moves do not depend on 'centre' on these 6 probe positions" in said
    assert "reads 'centre' from weights.json" in said
    for gene in ("liberties", "atari", "edge"):
        assert f"do not depend on '{gene}'" not in said
    assert "answered the same position differently" not in said  # the example agent is deterministic


@pytest.mark.slow
def test_a_run_whose_every_game_is_the_agents_fault_stops_with_a_clear_message(tmp_path):
    folder = agent_copy(tmp_path)
    script = (folder / "my_player3.py").read_text()
    (folder / "my_player3.py").write_text(  # fine on the empty board (the checks), a crash on any other
        script.replace(
            "    colour, previous, current = read_input()\n",
            ("    colour, previous, current = read_input()\n    if any(current):\n        raise SystemExit('lost')\n"),
        )
    )
    process = cli(
        "evolve", "run", write_config(tmp_path, program=folder), "--runs-dir", tmp_path / "runs", "--no-progress"
    )
    assert process.returncode == 2, process.stderr
    assert "every one of the 6 games of this generation was lost by the program's own fault" in process.stderr
    assert "Traceback" not in process.stderr and "evolve export" not in process.stdout


def test_a_program_spec_plays_an_agent_with_a_weights_file_of_its_own(tmp_path, capsys):
    for name, weights in (("edge.json", [0.0, 0.0, 1.0, -1.0]), ("centre.json", [0.2, 1.0, -0.3, 0.3])):
        (tmp_path / name).write_text(json.dumps(dict(zip(["liberties", "atari", "edge", "centre"], weights))))
    edge = make_player(f"program:{EXAMPLE}:{tmp_path / 'edge.json'}:weights.json")
    centre = make_player(f"program:{EXAMPLE}:{tmp_path / 'centre.json'}:weights.json")
    for player, allowed in ((edge, lambda i, j: 0 in (i, j) or 4 in (i, j)), (centre, lambda i, j: (i, j) == (1, 1))):
        player.new_game(BLACK, 0)
        try:
            assert allowed(*divmod(player.move(Position.initial()), 5))
        finally:
            player.close()
    spec = f"program:{EXAMPLE}:{tmp_path / 'edge.json'}:weights.json"
    assert main(["match", spec, f"program:{EXAMPLE}:{tmp_path / 'centre.json'}:weights.json", "--games", "2"]) == 0
    assert "Games: 2" in capsys.readouterr().out
    for bad, words in (
        (f"program:{EXAMPLE}", "expected program:DIR:WEIGHTS[:NAME]"),
        (f"program:{EXAMPLE}:{tmp_path / 'missing.json'}", "cannot be read"),
        (f"program:{EXAMPLE}:{tmp_path / 'edge.json'}:input.txt", "cannot name the agent's weights file"),
        (f"program:{EXAMPLE}:{tmp_path / 'edge.json'}", "holds no 'edge.json', so the agent would not read"),
    ):
        with pytest.raises(ValueError, match=re.escape(words)):
            make_player(bad)


def test_a_resume_warns_when_the_agent_changed_since_the_run_began(tmp_path, capsys):
    config = load_config(write_config(tmp_path))
    config = config._replace(individual=config.individual._replace(fingerprint="as the run began"))
    with program_built(config):
        pass
    assert "changed since the run began" in capsys.readouterr().err


@pytest.mark.fast
def test_without_a_weights_file_the_run_starts_at_random(tmp_path):
    config = load_config(write_config(tmp_path, program=agent_copy(tmp_path, None)))
    assert config.start.weights == () and config.individual.base == {}


@pytest.mark.fast
@pytest.mark.parametrize(
    "change, weights, words",
    [
        (('program = "{program}"', 'program = "{program}/nothing"'), WEIGHTS, "individual.program.*no such folder"),
        (('weights_file = "weights.json"', 'weights_file = "../weights.json"'), WEIGHTS, "plain file name"),
        (('weights_file = "weights.json"', 'weights_file = "my_player3.py"'), WEIGHTS, "the host or the agent"),
        (
            ('weights_file = "weights.json"', 'weights_file = "weights.json"\nspeed = 2'),
            WEIGHTS,
            "unknown key 'individual.speed'",
        ),
        (
            (TINY[TINY.index("[individual.bounds]") : TINY.index("[[panel]]")], ""),
            WEIGHTS,
            "individual.bounds' must name each weight",
        ),
        (("atari = [-3.0, 3.0]", "atari = [3.0, -3.0]"), WEIGHTS, "individual.bounds.atari' must be \\[low, high\\]"),
        (("jobs = 2", "jobs = 2\ntapered = true"), WEIGHTS, "'tapered'"),
        (("jobs = 2", "jobs = 2\ndepth = 3"), WEIGHTS, "'depth' is our searcher's"),
        (("[start]", '[executor]\nscheduler = "tcp://127.0.0.1:8786"\n\n[start]'), WEIGHTS, "executor.scheduler"),
        (("random = 1.0", 'random = 1.0\nparams = ["params.json"]'), WEIGHTS, "start.params"),
        (("", ""), dict(WEIGHTS, atari=9.0), "atari = 9 is outside 'individual.bounds.atari'"),
        (("", ""), dict(WEIGHTS, edge="low"), "edge = 'low' is not a finite number"),
        (
            ("centre = [-1.0, 1.0]", "centre = [-1.0, 1.0]\ncenter = [-1.0, 1.0]"),
            WEIGHTS,
            "'individual.bounds.center' is not in .*weights.json.*would never read it",
        ),
        (("", ""), [1, 2, 3], "not a JSON object"),
    ],
)
def test_bad_program_configs_name_the_key(tmp_path, change, weights, words):
    folder = agent_copy(tmp_path, weights)
    path = write_config(tmp_path, TINY.replace(*change), program=folder)
    with pytest.raises(ConfigError, match=words):
        load_config(path)


@pytest.mark.fast
def test_the_sandbox_mode_is_a_closed_set_whose_strings_the_files_and_flags_keep(tmp_path):
    """[individual] sandbox and --sandbox read a SandboxMode member; the checkpoint's plain data holds
    its string, the games' limits the member, and a mode outside the set is one clear error."""
    folder = agent_copy(tmp_path)
    for mode in MODES:
        text = TINY.replace('weights_file = "weights.json"', f'weights_file = "weights.json"\nsandbox = "{mode}"')
        config = load_config(write_config(tmp_path, text, program=folder))
        assert config.individual.sandbox is SandboxMode(mode)
        data = config.to_json()
        assert type(data["individual"]["sandbox"]) is str and data["individual"]["sandbox"] == mode
        assert Config.from_json(json.loads(json.dumps(data))).individual.sandbox is SandboxMode(mode)
        assert config.games(0).limits.mode is SandboxMode(mode) and f"{SandboxMode(mode)}" == mode
        args = argparse.Namespace(sandbox=mode, memory=256, processes=64, file_size=16, folder_size=8)
        if mode != "strict" or strict_refusal() is None:
            assert sandbox_limits(args).mode is SandboxMode(mode)
    bad = TINY.replace('weights_file = "weights.json"', 'weights_file = "weights.json"\nsandbox = "on"')
    with pytest.raises(ConfigError, match="'individual.sandbox' = 'on' is out of range: 'auto', 'strict' or 'off'"):
        load_config(write_config(tmp_path, bad, program=folder))


@pytest.mark.fast
def test_a_folder_without_a_course_agent_is_refused(tmp_path):
    folder = tmp_path / "empty"
    folder.mkdir()
    (folder / "weights.json").write_text(json.dumps(WEIGHTS))
    with pytest.raises(ConfigError, match="holds no course agent"):
        load_config(write_config(tmp_path, program=folder))


@pytest.mark.fast
def test_a_weights_file_that_is_not_json_is_refused(tmp_path):
    folder = agent_copy(tmp_path)
    (folder / "weights.json").write_text("liberties: 0.2\n")
    with pytest.raises(ConfigError, match="weights.json is not JSON"):
        load_config(write_config(tmp_path, program=folder))


@pytest.mark.fast
def test_the_sidecar_sits_beside_the_weights_file():
    assert sidecar_of("a/weights.json") == "a/weights.provenance.json"
    assert sidecar_of("best-weights.json") == "best-weights.provenance.json"


scalars = (
    st.integers()
    | st.floats()
    | st.booleans()
    | st.text(max_size=8)
    | st.sampled_from(["examples/student-agent", "weights.json", "output.txt", "", ".", "..", "auto", "off"])
)
individual_tables = (
    st.dictionaries(
        st.sampled_from(["program", "weights_file", "sandbox", "cpu_limit", "bounds", "x"]),
        scalars
        | st.dictionaries(
            st.sampled_from(["liberties", "atari", "edge", "speed", ""]),
            st.lists(st.floats() | st.integers(), max_size=3) | scalars,
            max_size=4,
        ),
        max_size=5,
    )
    | scalars
)


@pytest.mark.fast
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(individual_tables, st.fixed_dictionaries({}, optional={"depth": scalars, "tapered": st.booleans()}))
def test_any_individual_table_loads_or_names_the_problem(table, top):
    data = dict(
        name="fuzz",
        seed=1,
        population=2,
        generations=1,
        individual=table,
        panel=[{"opponent": "random", "games": 2}],
        **top,
    )
    try:
        config = validate(data, "fuzz.toml")
    except ConfigError as error:
        assert "fuzz.toml" in str(error)
        return
    assert config.genes == tuple(table["bounds"]) and config.individual.folder == EXAMPLE


@pytest.mark.slow
def test_a_stopped_program_run_resumes_to_the_same_generations_whatever_the_workers(tmp_path):
    config = write_config(tmp_path)
    stopped = Evolution.create(config, str(tmp_path / "a"), jobs=2, progress=False, out=io.StringIO())
    stopped.run(stop_after=1)
    process = cli("evolve", "resume", stopped.run_dir, "--no-progress", timeout=HANG)
    assert process.returncode == 0, process.stderr
    whole = Evolution.create(config, str(tmp_path / "b"), jobs=1, progress=False, out=io.StringIO())
    whole.run()
    keys = ("generation", "best_fitness", "best_weights", "individuals")
    assert [{k: getattr(r, k) for k in keys} for r in read_generations(stopped.run_dir)] == [
        {k: getattr(r, k) for k in keys} for r in read_generations(whole.run_dir)
    ]


def test_where_games_ran_counts_in_words():
    from evolve.run_output import _where

    one = _where({"executor": "local pool", "workers": 1, "threads": 1})
    assert one == "local pool, 1 worker, 1 thread"
    assert _where({"executor": "local pool", "workers": 2, "threads": 2}) == "local pool, 2 workers, 2 threads"


RANDOM_AGENT = """import json, random
weights = json.load(open("weights.json"))   # read, as a tuned agent reads its weights
board = open("input.txt").read().split()[-5:]
empty = [f"{i},{j}" for i in range(5) for j in range(5) if board[i][j] == "0"]
open("output.txt", "w").write(random.choice(empty) if empty else "PASS")   # unseeded: fresh each process
"""


@pytest.mark.slow
def test_an_agent_with_unseeded_random_moves_is_told_to_seed_them(tmp_path, capsys):
    folder = agent_copy(tmp_path)
    (folder / "my_player3.py").write_text(RANDOM_AGENT)
    config = load_config(write_config(tmp_path, program=folder))
    with program_built(config):
        pass
    said = capsys.readouterr().err
    assert "answered the same position differently when asked twice" in said and "seed your agent's random" in said
    assert re.search(r"at ply \d+: \d,\d, then \d,\d\)", said), said  # the moves as the course writes them


@pytest.mark.skipif(shutil.which("g++") is None, reason="needs g++")
def test_a_failed_build_stops_the_run_with_the_compilers_own_lines(tmp_path):
    folder = tmp_path / "cpp-agent"
    folder.mkdir()
    (folder / "my_player.cpp").write_text("int main() { this is not C++; }\n")
    (folder / "weights.json").write_text(json.dumps(WEIGHTS))
    failed = cli("evolve", "run", write_config(tmp_path, program=folder), "--runs-dir", tmp_path / "runs", timeout=HANG)
    assert failed.returncode == 2, failed.stderr
    lines = failed.stderr.splitlines()
    start = next(k for k, line in enumerate(lines) if "cannot play: 'g++ -O2 *.cpp -o exe' failed" in line)
    assert any("error:" in line for line in lines[start + 1 :])  # the compiler's lines, each its own
    assert os.listdir(tmp_path / "runs") == []


def test_a_relative_program_that_is_not_there_says_where_it_was_looked_for(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = write_config(tmp_path, program="examples/student-agent")  # relative to the root, not to here
    with pytest.raises(ConfigError) as raised:
        load_config(config)
    message = str(raised.value)
    assert "'individual.program' = 'examples/student-agent'" in message and "no such folder" in message
    assert f"a relative path: from the current folder, {tmp_path / 'examples' / 'student-agent'}" in message
