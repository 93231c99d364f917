"""Each opponent's defining behaviour on board pictures, and player specs."""

import pytest

from engine import BLACK, PASS, WHITE, Position
from engine.bitboard import points_of
from engine.coords import to_point
from engine.players.qlearning import QLearningPlayer
from engine.players.scripted import AggressivePlayer, AlphaBetaPlayer, GreedyPlayer, RandomPlayer
from engine.players.searcher import AgentPlayer
from engine.players.specs import make_player
from tests.conftest import fast_params


def ready(player, colour=BLACK, seed=0):
    player.new_game(colour, seed)
    return player


@pytest.mark.fast
def test_greedy_takes_the_biggest_capture():
    position = Position.from_picture(
        """
        O.OOX
        X.XX.
        .....
        .....
        .....""",
        player=BLACK,
    )
    # (0,1) captures the lone stone at (0,0) and the pair (0,2)-(0,3): three stones.
    for seed in range(5):
        assert ready(GreedyPlayer(), seed=seed).move(position) == to_point(0, 1)


@pytest.mark.fast
def test_greedy_breaks_ties_at_random():
    moves = {ready(GreedyPlayer(), seed=seed).move(Position.initial()) for seed in range(20)}
    assert len(moves) > 5


@pytest.mark.fast
def test_aggressive_sees_the_reply_two_plies_ahead():
    position = Position.from_picture(
        """
        XX...
        OO...
        .....
        .....
        .....""",
        player=BLACK,
    )
    # No capture now; only (0,2) stops White taking two stones in reply.
    for seed in range(5):
        assert ready(AggressivePlayer(), seed=seed).move(position) == to_point(0, 2)
    greedy_moves = {ready(GreedyPlayer(), seed=seed).move(position) for seed in range(10)}
    assert len(greedy_moves) > 1  # greedy does not look ahead


@pytest.mark.fast
def test_alphabeta_obeys_its_depth_and_branching(monkeypatch):
    calls = []
    original_candidates = AlphaBetaPlayer._candidates
    original_value = AlphaBetaPlayer._value

    def candidates(self, position):
        found = original_candidates(self, position)
        calls.append(("candidates", len(found)))
        return found

    def value(self, position, depth, alpha, beta):
        calls.append(("depth", depth))
        return original_value(self, position, depth, alpha, beta)

    monkeypatch.setattr(AlphaBetaPlayer, "_candidates", candidates)
    monkeypatch.setattr(AlphaBetaPlayer, "_value", value)
    player = ready(AlphaBetaPlayer())
    move = player.move(Position.initial().play((2, 2)))
    assert move in points_of(Position.initial().play((2, 2)).legal_mask())
    assert max(n for kind, n in calls if kind == "candidates") == 10
    assert {d for kind, d in calls if kind == "depth"} == {0, 1}  # two plies: root move + reply


@pytest.mark.fast
def test_alphabeta_grabs_material():
    position = Position.from_picture(
        """
        .OX..
        OX...
        X....
        .....
        .....""",
        player=BLACK,
    )
    assert ready(AlphaBetaPlayer()).move(position) == to_point(0, 0)


@pytest.mark.fast
def test_random_plays_legal_moves_and_passes_only_when_it_must():
    position = Position.from_picture(
        """
        .XXXX
        XXXXX
        XXXXX
        XXXXX
        XXXX.""",
        player=WHITE,
    )
    assert ready(RandomPlayer(), WHITE).move(position) == PASS  # both points are suicide
    player = ready(RandomPlayer())
    start = Position.initial().play((2, 2))
    for _ in range(50):
        assert player.move(start) in points_of(start.legal_mask())


@pytest.mark.fast
@pytest.mark.parametrize(
    "spec, kind",
    [
        ("random", RandomPlayer),
        ("greedy", GreedyPlayer),
        ("aggressive", AggressivePlayer),
        ("alphabeta", AlphaBetaPlayer),
        ("agent", AgentPlayer),
        ("agent@2", AgentPlayer),
        ("agent:params.json@3", AgentPlayer),
        ("champion", AgentPlayer),
        ("qlearning", QLearningPlayer),
    ],
)
def test_specs_build_players(spec, kind):
    player = make_player(spec)
    assert isinstance(player, kind) and player.spec == spec
    if spec == "agent@2":
        assert player.depth == 2


@pytest.mark.fast
def test_champion_with_another_params_file_keeps_the_shipped_book(tmp_path):
    path = tmp_path / "candidate.json"
    path.write_bytes(fast_params(margin=12.5))
    shipped, candidate = make_player("champion"), make_player(f"champion:{path}")
    assert candidate.spec == f"champion:{path}"
    assert candidate.params.weights["margin"] == 12.5 != shipped.params.weights["margin"]
    after_a_corner = Position.initial().play_point(0)  # a losing first move: the White book answers
    assert candidate.book.move(after_a_corner) == shipped.book.move(after_a_corner) is not None


@pytest.mark.fast
@pytest.mark.parametrize(
    "spec, words",
    [
        ("bogus", "unknown player"),
        ("random:3", "takes no argument"),
        ("agent@0", "depth"),
        ("agent:missing.json", "cannot read"),
        ("champion:missing.json", "cannot read"),
        ("cmd:", "cmd:DIR"),
        ("cmd:/no/such/dir", "does not exist"),
        ("gnugo:99", "level"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec, words):
    with pytest.raises(ValueError, match=words):
        make_player(spec)
