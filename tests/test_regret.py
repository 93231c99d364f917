"""The regret fitness's positions (evolve/solved/positions.py): drawn out of the book, every legal move solved,
kept with a journal that a stopped build continues from; ``evolve regret``, the ruler (engine/ruler/) on
params as shipped, scored the same by either searcher and with any jobs; and exploitability
(evolve/solved/exploit.py)."""

import gzip
import json

import pytest

from engine.common.generation_record import GenerationRecord
from engine.data import SHIPPED_PARAMS
from engine.native.solver import position_from_text
from engine.params import load_params
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import measure
from engine.ruler.position_set import PositionsError, load_positions
from evolve.runs import export_best
from evolve.solved.position_sources import draw_position_texts
from evolve.solved.positions import _journal_line, build_positions
from tests.conftest import cli


@pytest.mark.fast
def test_a_built_set_holds_each_legal_moves_result_and_continues_from_its_journal(library, tmp_path):
    out = str(tmp_path / "positions.json.gz")
    drawn = draw_position_texts(2, (10, 11), seed=3)
    assert [position_from_text(text).moves_played for text, _ in drawn] == [10, 10, 11, 11]
    first_text = drawn[0][0]
    position = position_from_text(first_text)
    forged = {move: True for move in position.legal_points()}  # a journal line the build must not redo
    from engine.constants import PASS

    forged[PASS] = True
    with open(out + ".journal", "w") as handle:
        handle.write(_journal_line(first_text, forged))
        handle.write('{"position": "1 10')  # a line cut off by a kill
    built = build_positions(out, 2, (10, 11), seed=3, table_bits=18)
    assert built == load_positions(out)
    assert [p.text for p in built.positions] == [text for text, _ in drawn]
    assert built.positions[0].moves == forged  # read from the journal, not solved again
    assert not (tmp_path / "positions.json.gz.journal").exists()
    for solved in built.positions:
        assert set(solved.moves) == set(position_from_text(solved.text).legal_points()) | {PASS}
    assert built.info["seed"] == 3 and built.info["solver"].startswith("solve-")


@pytest.mark.fast
def test_a_journal_cut_by_a_kill_keeps_every_answer_written_after_it(library, tmp_path):
    from evolve.solved.positions import _read_journal, solve_positions

    texts = [text for text, _ in draw_position_texts(2, (10, 10), seed=4)]
    journal = tmp_path / "build.journal"
    journal.write_text('{"position": "1 10')  # a line cut off by a kill
    done, _ = solve_positions(texts, str(journal), table_bits=18)
    assert set(_read_journal(str(journal))) == set(texts) == set(done)  # nothing merged into the cut line


@pytest.mark.slow
def test_the_score_is_the_same_with_either_searcher_in_any_order_and_with_any_jobs(library, tmp_path):
    out = str(tmp_path / "positions.json.gz")
    found = build_positions(out, 3, (9, 11), seed=5, table_bits=18)
    params = load_params(SHIPPED_PARAMS)
    native, python = (FreshSearch(params, searcher, nodes_per_second=2000) for searcher in ("native", "python"))
    (by_native, by_python) = measure([native, python], found.positions)
    assert by_native == by_python and by_native.won == sum(p.won for p in found.positions)
    (backwards,) = measure([native], found.positions[::-1])
    assert backwards._replace(misses=()) == by_native._replace(misses=())
    assert sorted((m.solved.text, str(m.answer)) for m in backwards.misses) == sorted(
        (m.solved.text, str(m.answer)) for m in by_native.misses
    )
    words = ["evolve", "regret", SHIPPED_PARAMS, "--positions", out, "--nodes-per-second", "2000", "--json"]
    rows = [json.loads(cli(*words, "--jobs", jobs).stdout) for jobs in ("1", "2")]
    assert rows[0] == rows[1]
    fitness, held_out = rows[0][0]["fitness"], rows[0][0]["held_out"]
    assert fitness["won"] + held_out["won"] == by_native.won and fitness["kept"] + held_out["kept"] == by_native.kept
    assert sum(won for _, won in held_out["by_colour"].values()) == held_out["won"]
    printed = cli(*words[:-1], "--jobs", "1").stdout
    assert f"held_out: kept {held_out['kept']} of {held_out['won']} won positions" in printed


def test_a_damaged_positions_file_is_refused_by_name(tmp_path):
    path = tmp_path / "bad.json.gz"
    path.write_bytes(gzip.compress(b'{"format": "littlego-regret 1", "positions": [{"position": "1 3"}]}'))
    with pytest.raises(PositionsError, match=r"positions\[0\]"):
        load_positions(str(path))
    path.write_bytes(gzip.compress(b'{"format": "littlego-labels 1"}')[:20])
    with pytest.raises(PositionsError, match="bad.json.gz"):
        load_positions(str(path))
    result = cli("evolve", "regret", SHIPPED_PARAMS, "--positions", str(path))
    assert result.returncode == 2 and "Traceback" not in result.stderr and "bad.json.gz" in result.stderr


SHIPPED_RUN = """
name = "as-shipped"
seed = 7
population = 4
generations = 1
strategy = "cmaes"
depth = 2
jobs = {workers}

[cmaes]
sigma = 0.2
hall_of_fame = 2

[fitness]
play = "as-shipped"
settings = "{settings}"

[regret]
positions = "{positions}"

[[panel]]
opponent = "champion"
games = 2
random_opening = 2
"""


def _run(tmp_path, workers, positions, settings):
    from evolve.loop import Evolution

    config = tmp_path / f"run{workers}.toml"
    config.write_text(SHIPPED_RUN.format(workers=workers, positions=positions, settings=settings))
    run = Evolution.create(str(config), runs_dir=str(tmp_path / f"runs{workers}"), jobs=workers, progress=False)
    run.run()
    text = next((tmp_path / f"runs{workers}").glob("*/generations.jsonl")).read_text()
    records = [json.loads(line) for line in text.splitlines()]
    # the record read back writes the line the run wrote, the regret's fields included, byte for byte
    assert "".join(json.dumps(GenerationRecord.from_json(r, "here").to_json()) + "\n" for r in records) == text
    return records


@pytest.mark.slow
def test_a_run_as_shipped_with_the_regret_fitness_replays_with_any_workers(library, tmp_path):
    """[fitness] play = "as-shipped" and [regret]: the same generations with one worker and two; each
    record says how it played, the regret kept and the held-out share."""
    from engine.params import make_params, save_params

    settings = str(tmp_path / "quick.json")
    save_params(settings, make_params(load_params(SHIPPED_PARAMS).weights, depth=6, cpu_budget=0.05, solve_from=14))
    positions = str(tmp_path / "positions.json.gz")
    build_positions(positions, 3, (10, 11), seed=2, table_bits=18)
    one, two = (_run(tmp_path, workers, positions, settings) for workers in (1, 2))
    keys = ("best_fitness", "best_weights", "best_regret_kept", "best_held_out")
    assert [{k: r[k] for k in keys} for r in one] == [{k: r[k] for k in keys} for r in two]
    assert all(r["play"] == "as-shipped" and r["best_held_out"]["won"] >= 0 for r in one)
    assert all(0 <= ind["regret_kept"] <= 1 for r in one for ind in r["individuals"])
    exported = export_best(str(next((tmp_path / "runs1").iterdir())), str(tmp_path / "best.json")).provenance
    assert exported["evolved_as_shipped"] == {"depth": 6, "cpu_budget": 0.05, "cpu_cap": 0.05, "solve_from": 14}
    assert "evolved_at_depth" not in exported  # the config's depth 2 is not how it played


def test_the_regret_table_is_checked_by_key(tmp_path):
    from evolve.config import ConfigError, load_config

    missing = tmp_path / "missing.toml"
    missing.write_text(SHIPPED_RUN.format(workers=1, positions=tmp_path / "none.json.gz", settings=""))
    with pytest.raises(ConfigError, match=r"'regret.positions' = .*none.json.gz.*cannot read"):
        load_config(str(missing))
    bad = tmp_path / "bad.toml"
    bad.write_text(
        SHIPPED_RUN.format(workers=1, positions="x", settings="").replace('play = "as-shipped"', 'play = "fast"')
    )
    with pytest.raises(ConfigError, match="'fitness.play' = 'fast' is out of range"):
        load_config(str(bad))


def test_exploitability_a_perfect_player_closes_the_gap_and_a_random_one_keeps_little(library, tmp_path):
    """evolve/solved/exploit.py: a player that plays the solver's winning moves keeps every won position against
    the exact adversary (the whole gap closed); the report sums by ply and colour to the won positions."""
    from engine.native.solver import NativeSolver
    from engine.native.stored_solver import StoredSolver
    from engine.players.base import Player
    from engine.players.specs import make_player
    from evolve.solved.exploit import RandomMover, exploitability, wins_against_adversary

    out = str(tmp_path / "positions.json.gz")
    found = build_positions(out, 3, (10, 11), seed=4, table_bits=18)
    solver = NativeSolver(18)

    class Perfect(Player):
        spec = "perfect"

        def move(self, position):
            return min((m for m, wins in solver.move_results(position).items() if wins), key=str)

    perfect = exploitability(Perfect, "perfect", found.positions, table_bits=18)
    solver.close()
    assert perfect.won == sum(p.won for p in found.positions) > 0 and perfect.kept == perfect.won
    assert sum(won for _, won in perfect.by_ply_colour.values()) == perfect.won
    assert perfect.gap_closed in (1.0, None)
    random_mover = exploitability(RandomMover, "random", found.positions, table_bits=18)
    assert random_mover.kept < perfect.kept and random_mover.random_kept < perfect.kept
    # wins_against_adversary stops where the player gives the win away: the same answer as the game played out
    with StoredSolver(None, 18) as adversary:
        for solved in (p for p in found.positions if p.won):
            for player in (make_player("greedy"), RandomMover()):
                assert wins_against_adversary(player, solved.text, adversary) == _played_out(
                    player, solved.text, adversary
                )
    result = cli("evolve", "exploit", "greedy", "--positions", out, "--json", "--no-progress")
    assert result.returncode == 0 and json.loads(result.stdout)[0]["won"] == perfect.won, result.stderr
    held_out = cli("evolve", "exploit", "greedy", "--positions", out, "--json", "--no-progress", "--split", "held-out")
    assert json.loads(held_out.stdout)[0]["won"] == sum(p.won for p in found.split(True)), held_out.stderr


@pytest.mark.slow
def test_evolve_exploit_openings_plays_from_the_start_of_the_game(library):
    """``evolve exploit --openings``: the empty board and every won 2-ply opening, one game each, as
    ``openings_exploitability`` plays them."""
    from engine.book import book_key
    from engine.native.store import default_store_path
    from engine.native.stored_solver import StoredSolver
    from engine.players.specs import make_player
    from evolve.solved.exploit import openings_exploitability, won_openings

    with StoredSolver(default_store_path(), 18) as solver:
        openings = won_openings(solver)
        # every position after two moves whose mover wins: 273 of the 625, in 41 classes under the symmetries
        assert len(openings) == len({p.board_string() + p.previous_string() for p in openings}) == 273
        assert len({book_key(p)[0] for p in openings}) == 41 and {p.moves_played for p in openings} == {2}
        assert all(any(solver.move_results(p).values()) for p in openings)
        direct = openings_exploitability(lambda: make_player("greedy"), solver, openings)
    done = cli("evolve", "exploit", "greedy", "--openings", "--json", "--no-progress")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"player": "greedy", **direct.to_json()}]
    assert direct.of == 273 and direct.empty_board is False  # greedy gives Black's win away at once
    printed = cli("evolve", "exploit", "greedy", "--openings", "--no-progress")
    assert f"greedy: the empty board as Black lost; won 2-ply openings kept {direct.kept} of 273" in printed.stdout
    refused = cli("evolve", "exploit", "greedy", "--openings", "--split", "held-out")
    assert refused.returncode == 2 and "--split picks a positions file's positions" in refused.stderr


def _played_out(player, text, adversary):
    """Whether ``player`` wins from ``text`` against the exact adversary, the game played to its end."""
    from engine.native.solver import position_from_text
    from evolve.solved.exploit import adversary_move

    position = position_from_text(text)
    colour = position.player
    player.new_game(colour, 1)
    while not position.is_over:
        move = player.move(position) if position.player == colour else adversary_move(adversary, position)
        position = position.play_point(move)
    return position.winner == colour


def _record_games(folder, games):
    """An SGF folder of ``games`` (lists of course move texts), as a match writes one."""
    from engine.play.sgf import game_sgf, sgf_name

    folder.mkdir()
    for index, moves in enumerate(games):
        (folder / sgf_name(index)).write_bytes(game_sgf(moves))
    return str(folder)


def test_positions_drawn_from_records_are_the_games_positions_once_each(library, tmp_path):
    from evolve.solved.position_sources import recorded_position_texts
    from evolve.solved.positions import merge_positions

    moves = ["0,0", "4,4", "0,4", "4,0", "1,1", "3,3", "1,3", "3,1", "2,0", "2,4", "0,2", "4,2"]
    # the same game, turned by 180 degrees
    turned = ["4,4", "0,0", "4,0", "0,4", "3,3", "1,1", "3,1", "1,3", "2,4", "2,0", "4,2", "0,2"]
    records = _record_games(tmp_path / "games-sgf", [moves, turned])
    drawn = recorded_position_texts([records], (10, 11))
    assert [position_from_text(text).moves_played for text, _ in drawn] == [10, 11]  # the turned game adds none
    assert {source for _, source in drawn} == {"recorded"}
    out = str(tmp_path / "recorded.json.gz")
    built = build_positions(out, 5, (10, 11), table_bits=18, records=(records,))
    assert [p.text for p in built.positions] == [text for text, _ in drawn]
    assert built.info["records"][0]["file"] == records and len(built.info["records"][0]["sha256"]) == 64
    other = str(tmp_path / "random.json.gz")
    random_set = build_positions(other, 1, (11, 11), seed=3, table_bits=18)
    merged = merge_positions(str(tmp_path / "merged.json.gz"), [out, other, out])
    assert merged == load_positions(str(tmp_path / "merged.json.gz"))
    assert len(merged.positions) == len(built.positions) + sum(
        p.text not in {q.text for q in built.positions} for p in random_set.positions
    )
    assert [m["kept"] for m in merged.info["merged"]][2] == 0  # a file merged twice adds nothing
    result = cli("evolve", "positions", str(tmp_path / "x.json.gz"), "--from-records", str(tmp_path / "missing"))
    assert result.returncode == 2 and "missing" in result.stderr and "Traceback" not in result.stderr
