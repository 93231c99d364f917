"""Play again the games of the playing-budget SPRT that a fault of the machine ended, not a player.

Usage (from the repository root, with the two bundles of SUMMARY.md rebuilt):
  python3 experiments/seeded6-20261123-151627/replay_faults.py JOURNAL OUT.jsonl
as run (JOURNAL may be the plain journal or the kept budget-sprt.journal.xz):
  run=experiments/seeded6-20261123-151627
  python3 $run/replay_faults.py $run/budget-sprt.journal.xz $run/replayed-faults.jsonl > $run/replay.txt
  xz -9e $run/replayed-faults.jsonl         # kept compressed, as the journal

A game whose move process could not start ("setpriv: failed to execute /bin/sh: Resource
temporarily unavailable", "Cannot fork": the sandbox's old process limit counted every thread
of the user ``nobody`` while other tests ran as that user; fixed in d68ec87, after the match
had started) is played again as the same GameJob (the same seed, opening and colours), with
the sandbox as it is now, and written to OUT.jsonl; then the SPRT is reported over the finished
games with the replays in place of the faulted ones.
"""

import json
import lzma
import sys

from engine.common.pools import process_pool
from engine.play.match import GameJob, game_job
from engine.play.stats import sprt_state

FAULTS = ("Resource temporarily unavailable", "Cannot fork")


def main(journal_path, out_path):
    with lzma.open(journal_path, "rt") if journal_path.endswith(".xz") else open(journal_path) as handle:
        lines = [json.loads(line) for line in handle if line.strip()]
    header, games = lines[0], lines[1:]
    faulted = [g for g in games if g["reason"] == "crash" and any(f in g["detail"] for f in FAULTS)]
    print(f"{len(games)} games, {len(faulted)} ended by the machine's fault", flush=True)
    jobs = [
        GameJob(
            index=g["index"],
            spec_a=header["a"],
            spec_b=header["b"],
            seed=header["seed"],
            opening_plies=header["random_opening"],
            cpu_limit=header["cpu_limit"],
            fixed=None,
        )
        for g in faulted
    ]
    replayed = {}
    pool = process_pool(2)
    try:
        with open(out_path, "w") as out:
            for game in pool.imap_unordered(game_job, jobs):
                replayed[game.index] = game
                record = dict(game._asdict(), reason=game.reason.value)
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(f"game {game.index}: {game.reason.value} ({len(replayed)})", flush=True)
    finally:
        pool.close()
        pool.join()
    wins = losses = 0
    for g in games:
        if g["index"] in replayed:
            game = replayed[g["index"]]
            black, winner, _reason = game.black, game.winner, game.reason.value
        else:
            black, winner, _reason = g["black"], g["winner"], g["reason"]
        a_won = (winner == 1) == (black == header["a"])
        wins, losses = wins + a_won, losses + (not a_won)
    print(
        "with the replays: {} games, A won {}, lost {}: {}".format(
            wins + losses, wins, losses, sprt_state(wins, losses, *header["sprt"])
        )
    )


if __name__ == "__main__":
    main(*sys.argv[1:3])
