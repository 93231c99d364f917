"""Matches between two players: parallel, reproducible, reported as tournament players expect.

Game ``k`` of a match gives Black to player A when ``k`` is even, to B when odd; the two
games of a pair start from the same random opening and differ only in colours. A match may
instead give A one colour in every game (``a_colour``: how a side's strength as Black is
measured); each game then has an opening of its own. Every game depends only on (specs,
seed, game index, colours), so a match replays exactly.
"""

import math
import os
import time
from collections import Counter

from tqdm import tqdm

from engine.constants import BLACK, WHITE, COURSE_CPU_LIMIT
from engine.protocol import write_atomic
from engine.arena.game import play_game, END, REASONS
from engine.arena.executors import executor
from engine.arena.sgf import game_sgf, result_text
from engine.arena.specs import make_player

Z95 = 1.959963984540054


def game_job(job):
    """Worker: play one game of a match; a dict of plain values (pure in its arguments)."""
    index, spec_a, spec_b, seed, opening_plies, cpu_limit, fixed = job   # fixed: A's colour in every game, or None
    a_colour = fixed or (BLACK if index % 2 == 0 else WHITE)
    black_spec, white_spec = (spec_a, spec_b) if a_colour == BLACK else (spec_b, spec_a)
    black, white = make_player(black_spec, cpu_limit), make_player(white_spec, cpu_limit)
    record = play_game(black, white, seed=seed * 1000003 + index, opening_plies=opening_plies,
                       opening_seed=seed * 1000003 + (index if fixed else index // 2), cpu_limit=cpu_limit)
    result = record._asdict()
    result["index"] = index
    result["a_colour"] = a_colour
    return result


def wilson_interval(wins, games, z=Z95):
    """95% Wilson score interval of a win rate."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(score):
    """Elo difference implied by a score rate (inf at 0 or 1)."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def elo_with_margin(wins, games):
    """(Elo difference, its 95% error margin), as cutechess reports it."""
    score = wins / games
    deviation = math.sqrt(score * (1 - score) / games)
    low, high = elo_difference(score - Z95 * deviation), elo_difference(score + Z95 * deviation)
    return elo_difference(score), (high - low) / 2


def summarise(spec_a, spec_b, results):
    """The match's figures as one JSON-ready object."""
    name_a, name_b = (spec_a, spec_b) if spec_a != spec_b else (spec_a + " #1", spec_b + " #2")
    games = len(results)
    a_wins = sum(1 for r in results if r["winner"] == r["a_colour"])
    by_colour = {name_a: {"black": 0, "white": 0}, name_b: {"black": 0, "white": 0}}
    margins, cpu = [], {name_a: [], name_b: []}
    for r in results:
        a_won = r["winner"] == r["a_colour"]
        winner_name = name_a if a_won else name_b
        by_colour[winner_name]["black" if r["winner"] == BLACK else "white"] += 1
        a_margin = r["black_stones"] - r["white_stones"]
        margins.append(a_margin if r["a_colour"] == BLACK else -a_margin)
        for colour, seconds in r["cpu"]:
            cpu[name_a if colour == r["a_colour"] else name_b].append(seconds)
    low, high = wilson_interval(a_wins, games)
    elo, elo_margin = elo_with_margin(a_wins, games) if games else (math.nan, math.nan)
    # JSON has no infinity: an Elo difference that one-sided results leave unbounded is null.
    elo = elo if math.isfinite(elo) else None
    elo_margin = elo_margin if math.isfinite(elo_margin) else None
    ends = Counter(r["reason"] for r in results)
    return {
        "a": name_a, "b": name_b, "games": games,
        "wins": {name_a: a_wins, name_b: games - a_wins},
        "wins_by_colour": by_colour,
        "a_win_rate": a_wins / games if games else 0.0,
        "a_win_rate_95ci": [low, high],
        "elo": elo, "elo_95_margin": elo_margin,
        "a_mean_stone_margin": sum(margins) / games if games else 0.0,
        "cpu_per_move": {name: {"mean": (sum(s) / len(s)) if s else 0.0, "max": max(s) if s else 0.0}
                         for name, s in cpu.items()},
        "end": {reason: ends.get(reason, 0) for reason in REASONS},
        "faults": [r["detail"] for r in results if r["reason"] != END][:20],
    }


def sprt_bounds(alpha=0.05, beta=0.05):
    """(lower, upper) log-likelihood-ratio bounds of Wald's test: accept H0 below, H1 above."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt_llr(wins, losses, elo0, elo1):
    """Log-likelihood ratio of H1 (A is ``elo1`` stronger) against H0 (``elo0``), for won/lost games."""
    p0, p1 = (1 / (1 + 10 ** (-elo / 400)) for elo in (elo0, elo1))
    return wins * math.log(p1 / p0) + losses * math.log((1 - p1) / (1 - p0))


def sprt_state(results, elo0, elo1, alpha=0.05, beta=0.05):
    """The test after these games: LLR, bounds and the decision (None while it goes on)."""
    wins = sum(1 for r in results if r["winner"] == r["a_colour"])
    llr = sprt_llr(wins, len(results) - wins, elo0, elo1)
    lower, upper = sprt_bounds(alpha, beta)
    decision = "H1" if llr >= upper else "H0" if llr <= lower else None
    return {"elo0": elo0, "elo1": elo1, "alpha": alpha, "beta": beta, "llr": llr, "lower": lower, "upper": upper,
            "games": len(results), "decision": decision}


def run_match(spec_a, spec_b, games, jobs=None, seed=1, opening_plies=0,
              cpu_limit=COURSE_CPU_LIMIT, progress=True, sgf_dir=None, scheduler=None, sprt=None,
              a_colour=None):
    """Play the match; (summary, per-game results in game order).

    ``a_colour``: BLACK or WHITE gives A that colour in every game (default: alternating).

    ``sprt=(elo0, elo1)``: stop as soon as a sequential probability ratio test (alpha = beta
    = 0.05) accepts either hypothesis about A's Elo over B, checked after each pair of games
    (the same opening with colours swapped); ``games`` is then the most it plays.

    ``progress``: True draws a bar; a function hears ``(games done, games, the SPRT's state or
    None, A's wins so far)`` after each game.

    A KeyboardInterrupt (Ctrl-C) after some games ends the match there: the summary covers
    the games finished, and says ``interrupted``; before the first game ends, it propagates.
    """
    for spec in (spec_a, spec_b):
        make_player(spec).close()            # a bad spec fails here, before any worker starts
    if sprt and a_colour:
        raise ValueError("the SPRT compares colour-swapped pairs: it needs alternating colours")
    jobs = jobs or os.cpu_count() or 1
    work = [(k, spec_a, spec_b, seed, opening_plies, cpu_limit, a_colour) for k in range(games)]
    results = []
    test = None
    a_wins = 0
    bar = None
    if progress is True:
        bar = tqdm(total=games, unit="game", desc="{} vs {}".format(spec_a, spec_b), leave=False)

        def progress(done, total, test, a_wins):
            bar.set_postfix_str("{} {}-{}".format(spec_a, a_wins, done - a_wins), refresh=False)
            bar.update(1)

    started = time.time()

    def collect(stream):
        nonlocal test, a_wins
        for result in stream:
            results.append(result)
            a_wins += result["winner"] == result["a_colour"]
            if sprt and len(results) % 2 == 0:
                test = sprt_state(results, *sprt)
            if progress:
                progress(len(results), games, test, a_wins)
            if test and test["decision"]:
                return

    interrupted = False
    try:
        if jobs == 1 and scheduler is None:
            collect(game_job(job) for job in work)
        else:
            with executor(scheduler, jobs) as games_executor:
                collect(games_executor.map(game_job, work))     # results come in game order
    except KeyboardInterrupt:
        if not results:
            raise
        interrupted = True                  # Ctrl-C: the games finished so far are the match
    finally:
        if bar:
            bar.close()
    results.sort(key=lambda r: r["index"])
    summary = summarise(spec_a, spec_b, results)
    summary["seconds"] = time.time() - started
    summary["seed"], summary["random_opening"], summary["jobs"] = seed, opening_plies, jobs
    summary["a_colour"] = {BLACK: "black", WHITE: "white"}.get(a_colour, "alternating")
    if sprt:
        summary["sprt"] = test or sprt_state(results, *sprt)
    if interrupted:
        summary["interrupted"] = "after {} of {} games".format(len(results), games)
    if sgf_dir:
        write_sgf_games(sgf_dir, results)
    return summary, results


def write_sgf_games(directory, results):
    """Every game as an SGF file in ``directory``."""
    if not os.path.isdir(directory):
        os.makedirs(directory)
    for r in results:
        record = game_sgf(r["moves"], r["black"], r["white"],
                          result_text(r["winner"], r["black_stones"], r["white_stones"], r["reason"] != END),
                          r["detail"] or None)
        write_atomic(os.path.join(directory, "game-{:04d}.sgf".format(r["index"])), record)


def format_report(summary):
    """The match as a cutechess-style table."""
    a, b = summary["a"], summary["b"]
    width = max(len(a), len(b), 6)
    lines = ["{:<{w}} {:>6} {:>8} {:>8} {:>11} {:>10}".format(
        "player", "wins", "as Black", "as White", "CPU/move", "worst CPU", w=width)]
    for name in (a, b):
        colour = summary["wins_by_colour"][name]
        cpu = summary["cpu_per_move"][name]
        lines.append("{:<{w}} {:>6} {:>8} {:>8} {:>10.3f}s {:>9.3f}s".format(
            name, summary["wins"][name], colour["black"], colour["white"], cpu["mean"], cpu["max"], w=width))
    low, high = summary["a_win_rate_95ci"]
    lines.append("")
    lines.append("Games: {}   {} win rate: {:.1%} (95% CI {:.1%} to {:.1%})".format(
        summary["games"], a, summary["a_win_rate"], low, high))
    elo, margin = summary["elo"], summary["elo_95_margin"]
    if elo is None:
        lines.append("Elo difference: unbounded (one side won every game)")
    elif margin is None:
        lines.append("Elo difference: {:+.1f} (error margin unbounded: too few games lost)".format(elo))
    else:
        lines.append("Elo difference: {:+.1f} +/- {:.1f}".format(elo, margin))
    lines.append("Mean stone margin for {}: {:+.2f} (stones, no komi)".format(a, summary["a_mean_stone_margin"]))
    ends = ", ".join("{} {}".format(k, v) for k, v in summary["end"].items() if v)
    lines.append("Game ends: {}".format(ends))
    for fault in summary["faults"]:
        lines.append("  fault: {}".format(fault))
    test = summary.get("sprt")
    if test:
        verdict = {"H1": "H1 accepted: {} is at least {:+g} Elo stronger".format(a, test["elo1"]),
                   "H0": "H0 accepted: {} is not {:+g} Elo stronger (at most {:+g})".format(a, test["elo1"], test["elo0"]),
                   None: "inconclusive after {} games".format(test["games"])}[test["decision"]]
        lines.append("SPRT [{:+g}, {:+g}] (alpha {:g}, beta {:g}): LLR {:.2f} in ({:.2f}, {:.2f}): {}".format(
            test["elo0"], test["elo1"], test["alpha"], test["beta"], test["llr"], test["lower"], test["upper"], verdict))
    lines.append("Time: {:.1f} s with {} jobs".format(summary.get("seconds", 0), summary.get("jobs", 1)))
    return "\n".join(lines)
