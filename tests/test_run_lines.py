"""What a run prints as it goes, read as a user reads it: a legend above the first generation line, progress
lines on stderr without a terminal, rates below 1 with their digits, and the weights plot from the start."""

import os
import subprocess
import sys

import pytest

from engine.params import default_params, save_params
from evolve.config import load_config
from evolve.generations import generation_line, per_second_text
from evolve.runs import format_table, read_generations, start_weights, weights_figure
from tests.test_evolve import TINY, write_config

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.fast
def test_a_rate_below_one_keeps_its_digits():
    assert [per_second_text(rate) for rate in (0.0, 0.03, 0.047, 0.6, 1.0, 15.43)] == [
        "0.0",
        "0.03",
        "0.047",
        "0.6",
        "1.0",
        "15.4",
    ]


@pytest.mark.parametrize("flags", [[], ["--no-progress"]], ids=["piped", "no-progress"])
def test_a_piped_run_says_its_progress_on_stderr_explains_its_line_and_plots_from_its_start(
    tmp_path, monkeypatch, flags
):
    monkeypatch.chdir(tmp_path)
    save_params("start.json", default_params())
    config = write_config(
        tmp_path, TINY.replace("generations = 4", "generations = 1") + '\n[start]\nparams = ["start.json"]\n'
    )
    done = subprocess.run(  # both piped, as in a script: neither is a terminal
        [sys.executable, "-m", "evolve.cli", "run", config, "--runs-dir", "runs", "--jobs", "1"] + flags,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=ROOT),
    )
    assert done.returncode == 0, done.stderr
    out, err = done.stdout, done.stderr
    assert "generation 0: " in err and " games done (" in err  # inside generation 0, not after it
    lines = out.splitlines()
    (cost,) = [line for line in lines if line.startswith("cost, from the first")]
    assert "60 games in this generation" in cost and "(each later one plays 72 games, self-play's among them" in cost
    assert sum(record.games for record in read_generations(os.path.join("runs", os.listdir("runs")[0]))) == 60 + 72
    first = next(k for k, line in enumerate(lines) if line.startswith("gen   0"))
    legend = lines[first - 1]
    assert legend.startswith("(best: the best individual's fitness, the mean of its win rates against each panel entry")
    assert "Black, White: the share of its games it won in each colour" in legend
    assert sum(line.startswith("(best:") for line in lines) == 1  # once a run, not a flood
    (run_dir,) = [os.path.join("runs", name) for name in os.listdir("runs")]
    records = read_generations(run_dir)
    assert "0.03 games/s" in generation_line(records[0]._replace(games_per_second=0.03))
    table = format_table([records[0]._replace(games_per_second=0.03)]).splitlines()  # evolve log's too
    assert table[-1].split()[-1] == "0.03", table
    start = start_weights(run_dir)
    assert start == default_params().weights
    figure = weights_figure(records, load_config(config).bounds, start)
    trajectories = [line for line in figure.axes[0].get_lines() if line.get_linestyle() != ":"]
    assert all(list(line.get_xdata()[:2]) == [-1, 0] for line in trajectories)
    assert {line.get_label(): line.get_ydata()[0] for line in trajectories} == start
    figure.canvas.draw()
    assert "start" in [label.get_text() for label in figure.axes[0].get_xticklabels()]
