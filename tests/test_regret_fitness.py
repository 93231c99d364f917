"""The exact fitness of a run (evolve/regret_fitness.py): every individual, our searcher's weights or a student's
agent, measured by the ruler (engine.ruler) on the [regret] positions; the held-out share each generation
records, and the warning when the two shares part."""

import io
import os
import pickle
import shutil

import pytest

from engine.common.generation_record import GenerationRecord, HeldOut
from engine.players.specs import make_player
from engine.ruler.measure import measure
from engine.ruler.position_set import PositionSet, load_positions, save_positions
from evolve.agents import program_individual
from evolve.agents.program_individual import program_built
from evolve.cli.runs import fitness_words
from evolve.config import ConfigError, load_config
from evolve.fitness import FitnessGameError
from evolve.generations import OVERFIT_FLOOR, overfit_margin, overfitting_warning
from evolve.loop import Evolution
from evolve.regret_fitness import ProgramMake, measured
from evolve.run_output import show_generation
from evolve.runs import format_table, read_generations
from tests.conftest import GENERATION, ROOT, cli

# Solved positions of plies 3-8 (random play and games of mixed strength): a handful is taken for each test.
FRESH = os.path.join(ROOT, "experiments", "regret-20261127", "fresh-3-8.json.gz")
PLAIN = os.path.join(ROOT, "examples", "plain-python")

PROGRAM_RUN = """
name = "plain-regret"
seed = 5
population = 3
generations = 1
strategy = "cmaes"
jobs = 2

[cmaes]
sigma = 0.5
hall_of_fame = 1

[individual]
program = "{program}"
constants = ["evaluate.atari_weight", "WEIGHTS.edge"]

[regret]
positions = "{positions}"
"""


def few_positions(tmp_path, train=3, held_out=2):
    """A positions file of ``train`` won fitness positions, ``held_out`` held-out ones and a lost one (which
    the ruler skips), out of FRESH."""
    found = load_positions(FRESH)
    won = [p for p in found.positions if p.won]
    lost = next(p for p in found.positions if not p.won and not p.is_held_out)
    chosen = [p for p in won if not p.is_held_out][:train] + [lost] + [p for p in won if p.is_held_out][:held_out]
    path = str(tmp_path / "few.json.gz")
    save_positions(path, PositionSet(found.info, tuple(chosen)))
    return path


def program_config(tmp_path, text=PROGRAM_RUN, **fields):
    path = tmp_path / "run.toml"
    path.write_text(text.format(**dict(dict(program=PLAIN, positions=few_positions(tmp_path)), **fields)))
    return str(path)


def test_a_program_individuals_regret_fitness_is_the_rulers_measure_of_its_player(tmp_path, monkeypatch):
    """examples/plain-python's constants on [regret] alone: each individual's share kept is what the ruler
    measures of its player on the same positions, one call of the agent a position, and the generation
    records the best's held-out share beside it."""
    monkeypatch.setattr(program_individual, "check_probes", lambda *args: None)  # tested on their own, and slow
    path = program_config(tmp_path)
    run = Evolution.create(path, runs_dir=str(tmp_path / "runs"), jobs=2, progress=False, out=io.StringIO())
    run.run(stop_after=1)
    (record,) = read_generations(run.run_dir)
    config = load_config(path)
    positions = load_positions(config.regret.positions)
    with program_built(config) as program:
        makes = [ProgramMake(program, tuple(i["weights"]), f"individual {k}") for k, i in enumerate(record.individuals)]
        assert vars(pickle.loads(pickle.dumps(makes[0]))) == vars(makes[0])  # the pool's workers make the player
        kept = measure(makes, positions.won(False))
        (best,) = measure([ProgramMake(program, tuple(record.best_weights.values()), "best")], positions.won(True))
    assert [i["regret_kept"] for i in record.individuals] == [k.share for k in kept]
    assert [i["fitness"][0] for i in record.individuals] == [k.share for k in kept]  # the fitness alone
    assert record.best_regret_kept == max(k.share for k in kept)
    assert record.best_held_out == HeldOut(best.kept, best.won, best.share) and best.won == 2
    # CMA-ES's 3 draws and the agent as it was (generation 0 measures the start): 3 positions each
    assert record.evaluated == 3 + 1 and record.positions == 4 * 3 and record.games == 0
    assert record.positions_per_second > 0
    head, row = format_table([record]).splitlines()
    assert head.split()[-4:] == ["kept", "held", "out", "pos/s"] and row.split()[-2] == f"{best.share:.3f}"
    assert fitness_words(config, {"win_rate": 0.5, "mean_stone_margin": 0.0}) == "won positions kept 0.500"


@pytest.mark.fast
def test_a_regret_table_with_an_agent_is_read_and_its_mistakes_name_the_key(tmp_path):
    config = load_config(program_config(tmp_path))
    assert config.individual is not None and config.regret.won == 3
    for change, words in [
        (("[regret]\n", "[fitness]\nplay = 'as-shipped'\n[regret]\n"), "'fitness.play' = \"as-shipped\" is our"),
        (('positions = "{positions}"', 'positions = "{positions}.none"'), r"'regret.positions' = .*cannot read"),
        (('positions = "{positions}"', "weight = 2.0"), "regret.positions"),
    ]:
        with pytest.raises(ConfigError, match=words) as refused:
            load_config(program_config(tmp_path, PROGRAM_RUN.replace(*change)))
        assert "\n" not in str(refused.value)


def shares(generation, kept, held_out, won=200, held=50, evaluated=8):
    """A generation's record with the best's training share ``kept`` of ``won`` positions and ``held_out`` of
    ``held`` held-out ones."""
    line = dict(GENERATION, generation=generation, evaluated=evaluated, positions=evaluated * won)
    line.update(best_regret_kept=kept, best_held_out={"kept": round(held_out * held), "won": held, "share": held_out})
    return GenerationRecord.from_json(line, "here")


@pytest.mark.fast
def test_the_run_warns_once_the_training_and_held_out_shares_part_for_two_generations(capsys):
    margin = overfit_margin(shares(0, 0.9, 0.9))
    assert 2 * (0.09 / 200 + 0.09 / 50) ** 0.5 == pytest.approx(margin) and margin > OVERFIT_FLOOR
    within, past = shares(1, 0.92, 0.85), shares(2, 0.95, 0.80)  # gaps of 0.07 and 0.15: margins 0.108, 0.117
    assert overfitting_warning([within, past]) is None  # once is no trend
    assert "generation 3" in overfitting_warning([past, past._replace(generation=3)])
    parted = [past, shares(3, 0.96, 0.80)]
    warning = overfitting_warning(parted)
    assert "generation 3: the best individual keeps 0.960" in warning and "0.800 of the held-out" in warning
    assert overfitting_warning([shares(0, 0.96, 0.80), shares(1, 0.96, 0.96)]) is None  # the gap closed again
    assert overfitting_warning([shares(0, 1.0, 0.99, held=1000), shares(1, 1.0, 0.99, held=1000)]) is None  # floor
    warned = set()
    for entry in (parted[0], parted[1], shares(4, 0.97, 0.80)):
        show_generation(entry, io.StringIO(), warned, [parted[0]] if entry.generation > 2 else [])
    assert capsys.readouterr().err.count("the run is learning its positions") == 1  # said once on the terminal


class Flaky:
    """Makes the course's random player, after failing ``failures`` times as a worker's job may (a disk, a
    process limit)."""

    def __init__(self, failures):
        self.failures, self.weights = failures, (1.0, 2.0)

    def __call__(self):
        if self.failures:
            self.failures -= 1
            raise OSError("the worker's disk is full")
        return make_player("random")


@pytest.mark.fast
def test_a_ruler_job_that_fails_is_tried_again_and_twice_is_named(tmp_path):
    positions = load_positions(few_positions(tmp_path)).won(False)
    (kept,) = measured([Flaky(1)], positions, map)
    assert kept.won == len(positions)
    with pytest.raises(FitnessGameError, match=r"ruler job failed twice: individual 0 \(\[1.0, 2.0\]\), 3 won"):
        measured([Flaky(2)], positions, map)


WEIGHTS_RUN = """
name = "student-regret"
seed = 5
population = 3
generations = 1
strategy = "cmaes"
jobs = 2

[cmaes]
hall_of_fame = 1

[individual]
program = "{program}"
weights_file = "weights.json"

[individual.bounds]
liberties = [-1.0, 1.0]
atari = [-3.0, 3.0]
edge = [-1.0, 1.0]
centre = [-1.0, 1.0]

[regret]
positions = "{positions}"
"""


@pytest.mark.slow
def test_an_agent_with_a_weights_file_that_faults_on_every_position_stops_the_run(tmp_path):
    """examples/student-agent (its weights.json the genome), broken to crash on any board but the empty one
    (where the run's first move is checked): every won position is given away by its fault, so the run stops
    as one whose every game was, saying why."""
    folder = tmp_path / "agent"
    shutil.copytree(os.path.join(ROOT, "examples", "student-agent"), str(folder))
    script = (folder / "my_player3.py").read_text()
    crash = "    colour, previous, current = read_input()\n    if any(current):\n        raise SystemExit('lost')\n"
    (folder / "my_player3.py").write_text(script.replace("    colour, previous, current = read_input()\n", crash))
    path = program_config(tmp_path, WEIGHTS_RUN, program=str(folder))
    process = cli("evolve", "run", path, "--runs-dir", tmp_path / "runs", "--no-progress")
    assert process.returncode == 2, process.stderr
    assert "every one of the 12 won positions of this generation was lost by the program's own fault" in process.stderr
    assert "Traceback" not in process.stderr
