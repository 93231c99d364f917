"""The share of won out-of-book positions the shipped agent keeps, by ply, on positions no fit has seen
(issue 49's last done-when): `fresh-3-8.json.gz`, drawn at plies 3-8 with fresh seeds (`evolve positions
OUT --plies 3-8 --per-ply 30 --seed 4975` and `--per-ply 60 --seed 4976`, merged), less every position
that is also in another positions file of experiments/ (the regret fits' sets) or in a labels file
there (the label fit's), and less the training split of any positions file a given params file's own
fit read (its provenance's ``positions`` and ``fit_only``: ``evolve network`` fits the tuner benchmark's
training splits, this file's among them, so only its held-out split is unseen by such params). Each won
position is searched as the shipped agent plays it (`evolve regret`: the ruler, `engine.ruler.measure`,
with its depth, CPU budget and cap in nodes); by how it was drawn (uniform random legal play, games of
mixed strength) and in all. Several params files are scored on the same positions: those none of them has seen.

    python3 experiments/regret-20261127/fresh.py [PARAMS...]  # from the repository root; default params.json
"""

import glob
import os
import sys

from engine.book import book_key
from engine.native.solver import position_from_text
from engine.params import load_params
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import measure
from engine.ruler.position_set import load_positions
from evolve.solved.labels import load_labels

HERE = os.path.dirname(os.path.abspath(__file__))
FRESH = os.path.join(HERE, "fresh-3-8.json.gz")


def _key(position):
    return book_key(position_from_text(position.text))[0]


def main():
    paths = sys.argv[1:] or ["params.json"]
    every = [load_params(path) for path in paths]
    seen = set()
    for path in glob.glob(os.path.join(HERE, "..", "regret-*", "*.json.gz")):
        if os.path.abspath(path) != FRESH:
            seen |= {_key(p) for p in load_positions(path).positions}
    for path in glob.glob(os.path.join(HERE, "..", "*", "labels-*.json.gz")):
        seen |= {book_key(position)[0] for position in load_labels(path)[0]}
    named = [params.provenance.get(key) for params in every for key in ("positions", "fit_only")]
    for path in {path for files in named if isinstance(files, list) for path in files if isinstance(path, str)}:
        seen |= {_key(p) for p in load_positions(path).split(is_held_out=False)}
    fresh = load_positions(FRESH).positions
    unseen = [p for p in fresh if _key(p) not in seen]
    won = sum(p.won for p in unseen)
    print(f"{len(fresh)} positions, {len(fresh) - len(unseen)} also in another set; {won} won unseen")
    for path, params in zip(paths, every):
        print(path)
        for source in ("random", "games", None):
            chosen = [p for p in unseen if source is None or p.source == source]
            (score,) = measure([FreshSearch(params)], chosen)
            by_ply = ", ".join(f"{ply}: {kept}/{won}" for ply, (kept, won) in score.by_ply.items())
            print(f"  {source or 'all'}: kept {score.kept} of {score.won} ({score.share:.1%}); by ply {by_ply}")


if __name__ == "__main__":
    main()
