"""Replay recorded SPRT journals under both models: where would each test have stopped?

    python3 experiments/paired-sprt-20261125/replay.py JOURNAL [JOURNAL ...]

For each journal of a match with an SPRT (littlego match --sprt, evolve ship), the games in
order, checked after each colour pair as the match checks them: the first pair at which the
test on won and lost games (the model used until 2026-11-25) and the test on colour pairs
(engine.play.match.match_sprt now) decide, and the LLR of each at the journal's end.
"""

import json
import lzma
import sys

from engine.play.stats import pair_sprt_state, sprt_state


def games_of(path):
    opener = lzma.open if path.endswith(".xz") else open
    with opener(path, "rt") as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    return lines[0], lines[1:]


def replay(path):
    settings, games = games_of(path)
    elo0, elo1 = settings["sprt"]
    a = settings["a"]
    wins = losses = 0
    pairs = [0, 0, 0]
    stops = {"games": None, "pairs": None}
    for index in range(0, len(games) - 1, 2):
        scores = []
        for game in games[index : index + 2]:
            a_colour = 1 if game["black"] == a else 2
            scores.append(int(game["winner"] == a_colour))
        wins, losses = wins + sum(scores), losses + 2 - sum(scores)
        pairs[sum(scores)] += 1
        for model, state in (
            ("games", sprt_state(wins, losses, elo0, elo1)),
            ("pairs", pair_sprt_state(pairs, elo0, elo1)),
        ):
            if state.decision and stops[model] is None:
                stops[model] = (state.games, state.decision, round(state.llr, 2))
    end_games = sprt_state(wins, losses, elo0, elo1)
    end_pairs = pair_sprt_state(pairs, elo0, elo1)
    return {
        "journal": path,
        "sprt": [elo0, elo1],
        "games": 2 * sum(pairs),
        "pair scores (0, 1/2, 1)": pairs,
        "stops on games": stops["games"],
        "stops on pairs": stops["pairs"],
        "LLR at the end, games / pairs": [round(end_games.llr, 2), round(end_pairs.llr, 2)],
    }


if __name__ == "__main__":
    for path in sys.argv[1:]:
        print(json.dumps(replay(path)))
