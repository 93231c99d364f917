"""How many nodes the shipped agent's evaluation search visits at its CPU budget, on this machine.

Positions: uniform random legal play from the empty board (seed 20261125), plies 2-11, not in the
shipped book, game not over. Each searched as engine.agent.decide_move's search branch does (the
Python Searcher, params.json's depth, cpu_budget and cpu_cap). Prints one line a position and the
nodes per CPU second over all of them (the fitness's node budget per second of CPU budget).

    python3 experiments/node-budget-20261125/measure.py [PER_PLY] [--whole]

``--whole`` (2026-12-04): searched with params.json's whole evaluation (``params.evaluator()``: its
patterns and hidden layer too), as the agent searches now; without it, the flat weights alone, as measured
on 2026-11-25.
"""

import json
import random
import sys
import time

from engine.book import load_book
from engine.features import make_evaluator
from engine.params import load_params
from engine.playout import random_point
from engine.position import Position
from engine.search import Searcher

params = load_params("params.json")
book = load_book("book.json")
rng = random.Random(20261125)
rows = []
words = [word for word in sys.argv[1:] if word != "--whole"]
per_ply = int(words[0]) if words else 3
whole = "--whole" in sys.argv[1:]
for ply in range(2, 12):
    found = 0
    while found < per_ply:
        position = Position.initial()
        for _ in range(ply):
            position = position.play_point(random_point(position, rng))
            if position.is_over:
                break
        if position.is_over or book.move(position) is not None:
            continue
        found += 1
        evaluate = params.evaluator() if whole else make_evaluator(params.weights, params.endgame)
        searcher = Searcher(evaluate, rng=random.Random(1))
        start = time.process_time()
        result = searcher.iterative(position, params.depth, params.cpu_budget, params.cpu_cap)
        seconds = time.process_time() - start
        rows.append({"ply": ply, "nodes": searcher.nodes, "cpu": round(seconds, 3), "depth": result.depth})
        print(json.dumps(rows[-1]), flush=True)
nodes, cpu = sum(r["nodes"] for r in rows), sum(r["cpu"] for r in rows)
print(
    json.dumps(
        {"positions": len(rows), "nodes": nodes, "cpu": round(cpu, 2), "nodes_per_cpu_second": round(nodes / cpu)}
    )
)
