"""Every playing-budget SPRT of a weights candidate so far, and what decided it (issue 49).

For each test: its games and the candidate's score; the won openings each side kept (the solved
table of 2-ply openings, as `littlego match` now reports); where each side gave a won position away
at plies 2-6 (a position of `../regret-20261127/recorded-all-2-7.json.gz` won for the side to move,
followed by one won for the other side); and the regret fitness of the candidate and of the weights
it was tested against, on that set's fitness split and held-out fifth (`evolve regret`, or the
answers kept in `sprts-regret.json`); and the same pair's match played again as shipped in nodes
(deterministic: `littlego match shipped:CANDIDATE shipped:BASELINE --games 400 --random-opening 2
--seed 77`, the reports kept in `sprts-matches.json`).

    python3 experiments/tuners-20261125/sprts.py [--regret] [--matches]   # from the repository root

--regret scores the params again (about 13 CPU minutes) and writes sprts-regret.json; --matches
plays the matches again (about 80 CPU s each) and writes sprts-matches.json; without them the
kept answers are read. The params: `sprt-params.json.gz` (each candidate and each baseline, named);
the journals of the tests whose folders are not committed: `sprt-journals.tar.xz` and
`leg3-sprt.tar.xz`.
"""

import collections
import gzip
import io
import json
import lzma
import os
import subprocess
import sys
import tarfile
import tempfile

from engine.book import book_key
from engine.native.solver import position_from_text
from engine.play.game import MatchGame
from engine.play.journal import read_journal
from engine.play.match import match_sprt
from engine.play.sgf import game_record_sgf, read_game
from engine.play.summary import openings_kept, summarise
from engine.ruler.position_set import load_positions
from evolve.solved.tuners import spearman

HERE = os.path.dirname(os.path.abspath(__file__))
POSITIONS = os.path.join(HERE, "..", "regret-20261127", "recorded-all-2-7.json.gz")

# name, where the journal and report are, the candidate's and the baseline's names in sprt-params.json.gz
TESTS = [
    ("seeded6", "../seeded6-20261123-151627/budget-sprt", "cand-seeded6", "base-seeded6"),
    ("tapered6", "../tapered6-20261124-042140/ship/sprt", "cand-tapered6", "base-tapered6"),
    ("centre", "../centre-20261124/sprt", "cand-centre", "base-centre"),
    ("cross", "../cross-20261124/ship/sprt", "cand-cross", "base-now"),
    ("leg 1 GA", "sprt-journals.tar.xz:leg1-ga", "cand-leg1ga", "base-now"),
    ("leg 2 GA", "sprt-journals.tar.xz:leg2-ga", "cand-leg2ga", "base-now"),
    ("leg 2 SPSA", "sprt-journals.tar.xz:leg2-spsa", "cand-leg2spsa", "base-now"),
    ("leg 3 GA", "leg3-sprt.tar.xz:ship-leg3/ship/sprt", "cand-leg3ga", "base-now"),
]


def _read(where, suffix):
    """The bytes of a test's file: a path beside this script (plain or .xz), or a tar member."""
    if ":" in where:
        archive, member = where.split(":")
        with tarfile.open(os.path.join(HERE, archive)) as tar:
            return tar.extractfile(member + suffix).read()
    path = os.path.join(HERE, where + suffix)
    if not os.path.exists(path) and os.path.exists(path + ".xz"):
        path += ".xz"
    if path.endswith(".xz"):
        return lzma.open(path).read()
    with open(path, "rb") as handle:
        return handle.read()


def _games(where, folder):
    path = os.path.join(folder, where.replace("/", "_").replace(":", "_") + ".journal")
    with open(path, "wb") as out:
        out.write(_read(where, ".journal"))
    return read_journal(path, MatchGame)[1]


def _giveaways(games, won):
    """Counter of (side, ply): a won position at plies 2-6 the side to move turned into a lost one."""
    found = collections.Counter()
    for game in games:
        positions = read_game(game_record_sgf(game)).positions
        for ply in range(2, min(7, len(positions) - 1)):
            here, after = book_key(positions[ply])[0], book_key(positions[ply + 1])[0]
            if won.get(here) and won.get(after):
                mover_is_a = (ply % 2 == 0) == (game.a_colour == 1)
                found[("candidate" if mover_is_a else "baseline", ply)] += 1
    return found


def _params_files(folder):
    """{name: path}: each params document of sprt-params.json.gz written as a file in ``folder``."""
    with gzip.open(os.path.join(HERE, "sprt-params.json.gz"), "rt") as handle:
        params = json.load(handle)
    paths = {}
    for name, document in params.items():
        paths[name] = os.path.join(folder, name + ".json")
        with open(paths[name], "w") as out:
            json.dump(document, out)
    return paths


def _kept(file_name, again, compute):
    """The answers kept in ``file_name`` beside this script; where ``again``, ``compute(params paths)``'s
    first, kept there."""
    path = os.path.join(HERE, file_name)
    if again:
        with tempfile.TemporaryDirectory() as folder:
            answers = compute(_params_files(folder))
        with open(path, "w") as out:
            json.dump(answers, out, indent=1, sort_keys=True)
    with open(path) as handle:
        return json.load(handle)


def _score_regret(paths):
    """{name: [fitness split kept, held-out kept]} by ``evolve regret`` on the recorded set."""
    command = ["evolve", "regret", "--positions", POSITIONS, "--json", *paths.values()]
    scores = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
    by_path = {s["params"]: s for s in scores}
    return {name: [by_path[path]["fitness"]["kept"], by_path[path]["held_out"]["kept"]] for name, path in paths.items()}


def _play_matches(paths):
    """{test: the report of its pair's 400-game match as shipped in nodes}."""
    reports = {}
    for name, _, candidate, baseline in TESTS:
        command = ["littlego", "match", f"shipped:{paths[candidate]}", f"shipped:{paths[baseline]}", "--games", "400"]
        command += ["--random-opening", "2", "--seed", "77", "--jobs", "1", "--json", "--no-progress"]
        reports[name] = json.loads(subprocess.run(command, check=True, capture_output=True).stdout)
    return reports


def main():
    regret = _kept("sprts-regret.json", "--regret" in sys.argv[1:], _score_regret)
    matches = _kept("sprts-matches.json", "--matches" in sys.argv[1:], _play_matches)
    positions = load_positions(POSITIONS)
    won = {book_key(position_from_text(p.text))[0]: p.won for p in positions.positions}
    print(
        "| test | decision | games | candidate's score | won openings kept: candidate / baseline |"
        " given away at plies 2-6: candidate / baseline | regret kept: candidate / baseline (fitness + held out) |"
        " 400 games as shipped in nodes: score, won openings kept |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name, where, candidate, baseline in TESTS:
            games = _games(where, folder)
            try:
                test = json.load(io.BytesIO(_read(where, ".json")))["sprt"]
            except (KeyError, FileNotFoundError):  # a test stopped before its report: its state from the games
                test = match_sprt(games, 0, 20).to_json()
            summary = summarise("candidate", "baseline", games)
            kept = openings_kept(("candidate", "baseline"), games, 2)
            given = _giveaways(games, won)
            by_side = {side: sum(n for (s, _), n in given.items() if s == side) for side in ("candidate", "baseline")}
            decision = test.get("decision") or "undecided"
            replay = matches[name]
            replayed_kept = [replay["won_openings_kept"][player] for player in (replay["a"], replay["b"])]
            c, b = regret[candidate], regret[baseline]
            print(
                f"| {name} | {decision} (LLR {test.get('llr', float('nan')):.2f}) | {len(games)} |"
                f" {summary.a_win_rate:.1%} | {kept['candidate'][0]}/{kept['candidate'][1]} vs"
                f" {kept['baseline'][0]}/{kept['baseline'][1]} | {by_side['candidate']} / {by_side['baseline']} |"
                f" {c[0]}+{c[1]} / {b[0]}+{b[1]} ({sum(c) - sum(b):+d}) |"
                f" {replay['a_win_rate']:.1%}, {' vs '.join(f'{k}/{n}' for k, n in replayed_kept)} |"
            )
            rows.append((len(games), summary.a_win_rate, replay["a_win_rate"], sum(c) - sum(b), c[1] - b[1]))
    _correlations(rows)


def _correlations(rows):
    """Spearman's rank correlation of each predictor with the tests' scores: over every test, and over
    the tests of 120 games or more."""
    print()
    for label, chosen in (("every test", rows), ("tests of 120 games or more", [r for r in rows if r[0] >= 120])):
        scores = [r[1] for r in chosen]
        figures = ", ".join(
            f"{what} {spearman([r[column] for r in chosen], scores):.2f}"
            for what, column in (("the match as shipped", 2), ("the regret gain", 3), ("its held-out part", 4))
        )
        print(f"Spearman with the tests' scores, {label} ({len(chosen)}): {figures}")


if __name__ == "__main__":
    main()
