"""The project's promises about itself: CI runs the README's test command; the benchmarks run."""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_ci_runs_the_readmes_test_command_verbatim():
    readme = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    test_command = [b for b in blocks if "pytest" in b][0]
    ci_lines = open(os.path.join(ROOT, ".ci", "run")).read().splitlines()
    assert test_command in ci_lines


def run_command(module, *args):
    result = subprocess.run([sys.executable, "-m", module] + list(args), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_bench_rules_reports_what_it_measured():
    figures = run_command("engine.arena.cli", "bench", "rules", "--repeats", "1", "--playout-games", "5", "--json")
    assert figures["positions"] == 10786 and figures["legal_moves_positions_per_s"] > 0
    assert figures["playout_moves_per_s"] > 0 and len(figures["playout_runs"]) == 1


def test_bench_search_reports_each_depth():
    figures = run_command("engine.arena.cli", "bench", "search", "--max-depth", "2", "--games", "0", "--json")
    assert [row["depth"] for row in figures["depths"]] == [1, 2]
    assert sum(figures["positions"].values()) == 12


def test_evolve_bench_reports_games_per_second():
    figures = run_command("evolve.cli", "bench", "--workers", "1", "2", "--games", "4", "--depth", "1", "--json")
    assert set(figures["games_per_second"]) == {"1", "2"} and "2" in figures["speedup"]
