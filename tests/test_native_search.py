"""The compiled searcher (engine/native/search.c) is the same player as engine.search.

The same rules and features on every ply of the course host's games; the same value, move,
node count and random draws on positions of plies 0-22 (captures, KO bans, passes among
them) at depths 1-6 with the shipped, the hand-set and random weights; the same games, move
for move, between two weight vectors. The default run checks a few hundred positions and a
handful of games; ``-m slow`` checks 2,100 positions and 200 games.
"""

import ctypes
import io
import math
import os
import random
import time

import pytest

import engine.search
from engine.constants import NUM_POINTS, PASS
from engine.data import SHIPPED_PARAMS
from engine.features import FEATURES, feature_values, make_evaluator
from engine.native import search as native
from engine.native.search import NATIVE_PASS, NativeSearcher, compiled_search, native_position, searcher_class
from engine.network import MAX_UNITS, Network, Unit
from engine.params import DEFAULT_WEIGHTS, load_params, make_params
from engine.patterns import PATTERNS
from engine.play.game import play_game
from engine.players.base import Reason
from engine.players.searcher import AgentPlayer
from engine.position import Position
from engine.search import Searcher, SearchTimeout
from evolve.cli import main as evolve_main
from tests.conftest import random_position

SHIPPED = load_params(SHIPPED_PARAMS).weights
PARAMS_20261128 = os.path.join(os.path.dirname(__file__), "fixtures", "params-20261128.json")  # shipped then


def vector_position(ply):
    return Position.from_boards(ply["player"], ply["previous"], ply["current"], ply["n_move"])


def random_weights(rng):
    """Weights of random signs and sizes, so that the evaluation's roundings matter."""
    return [rng.choice((-1, 1)) * rng.uniform(0, 1000) * 10 ** -rng.uniform(0, 4) for _ in FEATURES]


# -- (a) the rules and the features ------------------------------------------------------------


def test_the_features_and_the_rules_equal_the_pythons_on_every_ply_of_the_rules_vectors(library, vector_games):
    values = (ctypes.c_double * len(FEATURES))()
    after = native.NativePosition()
    checked = 0
    for game in vector_games:
        for ply in game["plies"]:
            position = vector_position(ply)
            library.ls_features(native_position(position), values)
            assert tuple(values) == feature_values(position), position
            legal = library.ls_legal_mask(native_position(position))
            assert legal == position.legal_mask(), position
            for move in position.all_moves():
                library.ls_play(native_position(position), NATIVE_PASS if move == PASS else move, after)
                assert tuple(getattr(after, name) for name, _ in after._fields_) == position.play_point(move), (
                    position,
                    move,
                )
            checked += 1
    assert checked > 10000


# -- (b) the same search on many positions ----------------------------------------------------


def sample_positions(count, seed, vector_games):
    """``count`` positions of plies 0-22, half from the host's games (all their KO bans among the
    first), half from random playouts with passes."""
    rng = random.Random(seed)
    plies = [ply for game in vector_games for ply in game["plies"] if ply["n_move"] <= 22]
    bans = [ply for ply in plies if ply["ko"]]
    chosen = bans[: count // 10] + rng.sample(plies, count // 2 - min(len(bans), count // 10))
    positions = [vector_position(ply) for ply in chosen]
    while len(positions) < count:
        positions.append(random_position(rng, 0, 22, pass_rate=0.1))
    rng.shuffle(positions)
    return positions


def random_network(rng, units):
    """A hidden layer of ``units`` units with random weights, of the sizes a fitted one has."""
    return Network(
        units=tuple(
            Unit(
                bias=rng.gauss(0, 1),
                own=tuple(rng.gauss(0, 0.5) for _ in range(NUM_POINTS)),
                opp=tuple(rng.gauss(0, 0.5) for _ in range(NUM_POINTS)),
                features=tuple(0.0 if name == "captures" else rng.gauss(0, 0.2) for name in FEATURES),
                out=rng.gauss(0, 20),
            )
            for _ in range(units)
        )
    )


def difference(
    position, weights, depth, seed, tie_break=True, shape_depth=None, endgame=None, patterns=None, network=None
):
    """None when both searchers answer alike (value, move, nodes, random draws, table); else both answers.
    With ``endgame`` weights, tapered; with ``patterns``, pattern weights too; with ``network``, a hidden
    layer."""
    answers = []
    for searcher_type in (Searcher, NativeSearcher):
        rng = random.Random(seed) if tie_break else None
        evaluate = make_evaluator(weights, endgame, patterns, network)
        searcher = searcher_type(evaluate, rng=rng, shape_depth=shape_depth)
        result = searcher.iterative(position, depth)
        table = len(searcher.table) if searcher_type is Searcher else searcher.table_size()
        answers.append(
            (
                result.move,
                result.value,
                result.depth,
                result.nodes,
                searcher.nodes,
                table,
                rng.random() if rng else None,
            )
        )
    return None if answers[0] == answers[1] else answers


def compare_searches(positions, depths, seed):
    rng = random.Random(seed)
    kinds = {"capture": 0, "ko": 0, "passed": 0}
    differences = []
    for index, position in enumerate(positions):
        # the shipped, the hand-set, random flat weights, and random tapered ones; every third with random
        # pattern weights; every fifth with a random hidden layer
        patterns = [random.Random(index).uniform(-20, 20) for _ in PATTERNS] if index % 3 == 2 else None
        network = random_network(random.Random(index), 1 + index % MAX_UNITS) if index % 5 == 1 else None
        weights, endgame = (
            (SHIPPED, None),
            (DEFAULT_WEIGHTS, None),
            (random_weights(rng), None),
            (random_weights(rng), random_weights(rng)),
        )[index % 4]
        depth = depths[index % len(depths)]
        found = difference(
            position,
            weights,
            depth,
            seed=index,
            tie_break=index % 4 != 3,
            shape_depth=3 if index % 5 == 4 else None,
            endgame=endgame,
            patterns=patterns,
            network=network,
        )
        if found:
            differences.append((str(position), depth, found))
        kinds["capture"] += position.mover_lost_stones()
        kinds["ko"] += bool(position.ko_mask())
        kinds["passed"] += position.passed
    return kinds, differences


@pytest.mark.slow
def test_the_same_values_moves_and_nodes_on_a_few_hundred_positions(library, vector_games):
    positions = sample_positions(300, 1, vector_games)
    kinds, differences = compare_searches(positions, (1, 2, 3, 1, 2, 3, 4, 2, 3, 4, 5, 6), seed=1)
    assert differences == []
    assert all(count >= 5 for count in kinds.values()), kinds


@pytest.mark.slow
def test_the_same_values_moves_and_nodes_on_two_thousand_positions(library, vector_games):
    positions = sample_positions(2100, 2, vector_games)
    kinds, differences = compare_searches(positions, (1, 2, 3, 4, 5, 6), seed=2)
    assert differences == [], f"{len(differences)} of {len(positions)} searches differ"
    assert all(count >= 30 for count in kinds.values()), kinds


@pytest.mark.fast
def test_the_same_search_on_boards_with_breathless_groups(library):
    # Boards read from any input may hold groups without a liberty (not `regular`): then
    # every move is checked for captures over the whole board, in C as in Python.
    rng, irregular = random.Random(3), 0
    for index in range(60):
        board = "".join(rng.choice("0001122") for _ in range(NUM_POINTS))
        position = Position.from_boards(rng.choice((1, 2)), board, board, rng.randint(0, 20))
        irregular += not position.regular
        assert difference(position, random_weights(rng), rng.randint(1, 3), seed=index) is None, position
    assert irregular > 10


def test_a_node_budget_stops_both_at_the_same_node_and_the_next_search_agrees(library, vector_games):
    for index, position in enumerate(sample_positions(12, 4, vector_games)):
        answers = []
        for searcher_type in (Searcher, NativeSearcher):
            searcher = searcher_type(make_evaluator(SHIPPED), rng=random.Random(index))
            stopped = searcher.iterative(position, 8, node_budget=700 + 300 * index)
            again = searcher.iterative(position, 3)  # on the tables the stopped search left
            answers.append((stopped, again.move, again.value, again.nodes, searcher.nodes))
        assert answers[0][0][:4] == answers[1][0][:4] and answers[0][1:] == answers[1][1:], position


@pytest.mark.fast
def test_value_in_a_window_and_a_deadline(library):
    rng = random.Random(5)
    for _ in range(20):
        position = random_position(rng, 0, 20)
        window = sorted(rng.uniform(-100, 100) for _ in range(2))
        python, compiled = Searcher(make_evaluator(DEFAULT_WEIGHTS)), NativeSearcher(make_evaluator(DEFAULT_WEIGHTS))
        assert python.value(position, 3, *window) == compiled.value(position, 3, *window)
        assert python.nodes == compiled.nodes
    with pytest.raises(SearchTimeout):
        NativeSearcher(make_evaluator(DEFAULT_WEIGHTS)).search(Position.initial(), 9, deadline=time.process_time())


# -- (c) the same games -------------------------------------------------------------------------


class NativeAgentPlayer(AgentPlayer):
    """Our agent at a fixed depth, searching with the compiled twin."""

    def __init__(self, params, depth, table_limit=engine.search.TABLE_LIMIT):
        AgentPlayer.__init__(self, params, depth=depth, timed=False)
        self.table_limit = table_limit

    def new_game(self, colour, seed):
        AgentPlayer.new_game(self, colour, seed)
        self.searcher = NativeSearcher(self.evaluate, rng=self.rng, table_limit=self.table_limit)


def play_both(first, second, depth, seed, opening_plies, **native_options):
    """The record of one game with the Python searchers and with the compiled ones, and the nodes each searched."""
    games = []
    for make in (
        lambda params: AgentPlayer(params, depth=depth, timed=False),
        lambda params: NativeAgentPlayer(params, depth, **native_options),
    ):
        black, white = make(first), make(second)
        record = play_game(black, white, seed=seed, opening_plies=opening_plies, cpu_limit=math.inf)
        games.append((record._replace(cpu=None), black.searcher.nodes, white.searcher.nodes))
    return games


def compare_games(count, depths, seed):
    rng = random.Random(seed)
    shipped, handset = make_params(SHIPPED), make_params(DEFAULT_WEIGHTS)
    differing = []
    for index in range(count // 2):
        pair = [
            (shipped, handset),
            (shipped, make_params(random_weights(rng))),
            (make_params(random_weights(rng)), handset),
            (make_params(random_weights(rng) + random_weights(rng)), shipped),
        ][index % 4]  # tapered
        depth, opening = depths[index % len(depths)], rng.randint(0, 6)
        for first, second in (pair, pair[::-1]):  # each weight vector with either colour
            python, compiled = play_both(first, second, depth, seed=1000 * seed + index, opening_plies=opening)
            assert python[0].reason == Reason.END, python[0]
            if python != compiled:
                differing.append((python, compiled))
    return differing


def test_seeded_games_are_the_same_move_for_move(library):
    assert compare_games(8, (3, 4, 2), seed=6) == []


@pytest.mark.slow
def test_two_hundred_seeded_games_are_the_same_move_for_move(library):
    differing = compare_games(200, (2, 3, 4, 5), seed=7)
    assert differing == [], f"{len(differing)} of 200 games differ"


@pytest.mark.fast
def test_games_that_fill_the_transposition_table_clear_it_as_the_python_does(library, monkeypatch):
    monkeypatch.setattr(engine.search, "TABLE_LIMIT", 400)
    python, compiled = play_both(
        make_params(SHIPPED), make_params(DEFAULT_WEIGHTS), 3, seed=8, opening_plies=2, table_limit=400
    )
    assert python == compiled


# -- building, and the fallback --------------------------------------------------------------


@pytest.fixture
def fresh_library():
    native.native_library.cache_clear()
    native._warn_once.cache_clear()
    yield
    native.native_library.cache_clear()
    native._warn_once.cache_clear()


@pytest.mark.fast
def test_without_a_compiler_the_python_searcher_with_one_warning(fresh_library, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CC", raising=False)
    warning = io.StringIO()
    assert searcher_class(warning) is Searcher
    assert not native.native_available()
    assert warning.getvalue().count("\n") == 1 and "no C compiler" in warning.getvalue()
    assert searcher_class(warning) is Searcher and warning.getvalue().count("\n") == 1  # once a process


def test_a_damaged_cached_library_is_compiled_again(library, fresh_library, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    path = compiled_search()
    with open(path, "wb") as damaged:
        damaged.write(b"not a shared library")
    assert searcher_class(io.StringIO()) is NativeSearcher
    assert os.path.getsize(path) > 1000
    assert difference(Position.initial(), SHIPPED, 2, seed=9) is None


def test_a_feature_computed_otherwise_in_c_stops_evolve_run_with_its_name(fresh_library, tmp_path, monkeypatch, capsys):
    def centre_off_by_one(position):
        values = list(feature_values(position))
        values[FEATURES.index("centre")] += 1.0
        return tuple(values)

    assert native.differing_feature(native.native_library()) is None  # the shipped C agrees
    name, position, compiled, expected = native.differing_feature(native.native_library(), centre_off_by_one)
    assert name == "centre" and expected == compiled + 1.0
    native.native_library.cache_clear()
    monkeypatch.setattr(native, "feature_values", centre_off_by_one)  # as a C twin gone wrong would differ
    config = tmp_path / "tiny.toml"
    config.write_text(
        'name = "tiny"\nseed = 1\npopulation = 4\ngenerations = 1\ndepth = 1\nworkers = 1\n'
        '[fitness]\nengine = "auto"\n[[panel]]\nopponent = "random"\ngames = 2\n'
    )
    assert evolve_main(["run", str(config), "--runs-dir", str(tmp_path / "runs"), "--no-progress"]) == 2
    said = capsys.readouterr().err
    assert "search.c computes the feature 'centre' otherwise than engine/features.py" in said
    assert 'fitness.searcher = "auto"' in said and 'searcher = "python"' in said


def test_a_node_planned_search_is_the_same_in_both_and_stays_within_its_cap(library, vector_games):
    """iterative_nodes: the same move, value, depth and nodes from the Python and the compiled searcher,
    and no more nodes than the cap allows (plus the 1,024 between two checks of it) after depth 1."""
    for index, position in enumerate(sample_positions(10, 4, vector_games)):
        budget, cap = 2000 + 500 * index, 5000 + 500 * index
        answers = []
        for searcher_type in (Searcher, NativeSearcher):
            searcher = searcher_type(make_evaluator(SHIPPED), rng=random.Random(index))
            first = searcher.search(position, 1).nodes
            searcher = searcher_type(make_evaluator(SHIPPED), rng=random.Random(index))
            found = searcher.iterative_nodes(position, 12, budget, cap, hard_budget=cap if index % 2 else None)
            assert searcher.nodes <= max(cap, first) + 1024 + first
            answers.append((found.move, found.value, found.depth, searcher.nodes))
        assert answers[0] == answers[1], position


@pytest.mark.fast
def test_the_shipped_player_searches_each_move_afresh_as_the_agent_does(library):
    """The agent runs in a new process a move, so nothing of its last search carries over: nor in the
    ShippedPlayer. In this game, with the weights shipped on 2026-11-28 (a fixture: with the layer shipped
    since, both searches choose 13), a searcher kept from Black's move at ply 6 chose 13 at ply 8, where a
    fresh search (and the agent) chooses 3."""
    from engine.players.shipped import ShippedPlayer

    params = load_params(PARAMS_20261128)
    position = Position.initial()
    for move in (18, 5, 7, 6, 9, 8):
        position = position.play_point(move)
    later = position.play_point(12).play_point(11)
    player = ShippedPlayer(params)
    player.new_game(position.player, 1)
    assert player.move(position) == 12
    fresh = ShippedPlayer(params)
    fresh.new_game(later.player, 1)
    assert player.move(later) == fresh.move(later) == 3
    # ties go to the first move, not to the game's seed: one opening, one game, whatever the seed
    quick = lambda: ShippedPlayer(params, nodes_per_second=4000)  # noqa: E731
    games = [play_game(quick(), quick(), seed=seed, opening_plies=2, opening_seed=5).moves for seed in (1, 2)]
    assert games[0] == games[1]


@pytest.mark.fast
def test_the_shipped_player_replays_and_keeps_a_won_endgame_won(library):
    """ShippedPlayer: the same game from the same seed; from solve_from on, a won position gets a
    winning move (a solver of its own confirms it)."""
    from engine.native.solver import NativeSolver
    from engine.players.shipped import ShippedPlayer

    params = load_params(SHIPPED_PARAMS)
    player = lambda: ShippedPlayer(params, nodes_per_second=4000)  # noqa: E731 - a small budget: a quick test
    first = play_game(player(), player(), seed=3, opening_plies=2)
    assert first.moves == play_game(player(), player(), seed=3, opening_plies=2).moves
    rng, solver, checked = random.Random(8), NativeSolver(18), 0
    while checked < 3:
        position = random_position(rng, params.solve_from + 1, params.solve_from + 6)
        if position.is_over or not solver.wins(position):
            continue
        shipped = player()
        shipped.new_game(position.player, 1)
        move = shipped.move(position)
        after = position.play_point(move)
        assert after.is_over and after.margin() < 0 or not after.is_over and not solver.wins(after), position
        checked += 1
    solver.close()
