"""The project's promises about itself: CI runs the README's test command; the docs build; the benchmarks run."""

import argparse
import doctest
import io
import json
import os
import re
import subprocess
import sys

import pytest

from engine.cli.littlego import build_parser as littlego_parser
from engine.common.progress import counter
from evolve.cli import build_parser as evolve_parser
from tests.conftest import HANG, ROOT, cli


@pytest.mark.fast
def test_ci_runs_the_readmes_test_command_verbatim():
    readme = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    test_command = [b for b in blocks if "pytest" in b][0]
    ci_lines = open(os.path.join(ROOT, ".ci", "run")).read().splitlines()
    assert test_command in ci_lines


@pytest.mark.fast
@pytest.mark.parametrize("check", [["check"], ["format", "--check"]], ids=["lint", "format"])
def test_the_code_passes_ruff(check):
    """ruff, as pyproject.toml configures it (120-character lines, the rules it selects)."""
    try:
        import ruff  # noqa: F401
    except ImportError:
        pytest.skip("ruff is not installed (python3 -m pip install -e '.[test]')")
    result = subprocess.run(
        [sys.executable, "-m", "ruff", *check, "--no-cache", "."], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_documentation_site_builds_strictly(tmp_path):
    """mkdocs build --strict: every page in the nav, every link and anchor, the API reference's modules."""
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        pytest.skip("mkdocs is not installed (python3 -m pip install -e '.[docs]')")
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
    )
    assert result.returncode == 0, result.stderr
    assert "engine.position" in (site / "api" / "core" / "index.html").read_text()


@pytest.mark.fast
def test_the_docs_name_every_command():
    """Every command of littlego and evolve has its place in the docs."""
    from engine.cli.littlego import build_parser as littlego_parser
    from evolve.cli import build_parser as evolve_parser

    docs = os.path.join(ROOT, "docs")
    text = "".join(
        open(os.path.join(folder, name)).read()
        for folder, _, names in os.walk(docs)
        for name in names
        if name.endswith(".md")
    )
    for tool, parser in (("littlego", littlego_parser()), ("evolve", evolve_parser())):
        commands = [action for action in parser._actions if isinstance(action, argparse._SubParsersAction)][0]
        for command in commands.choices:
            assert f"{tool} {command}" in text, f"no docs page names `{tool} {command}`"


@pytest.mark.fast
def test_the_readme_and_results_link_only_to_files_that_exist():
    for name in ("README.md", "RESULTS.md"):
        text = open(os.path.join(ROOT, name)).read()
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if "://" not in target:
                assert os.path.exists(os.path.join(ROOT, target)), f"{name} links to {target}: not there"


def run_command(tool, *args):
    """The JSON that ``tool`` (littlego or evolve) prints when run with ``args``, having succeeded."""
    result = cli(tool, *args)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_bench_rules_reports_what_it_measured():
    figures = run_command("littlego", "bench", "rules", "--repeats", "1", "--playout-games", "5", "--json")
    assert figures["positions"] == 10786 and figures["legal_moves_positions_per_s"] > 0
    assert figures["playout_moves_per_s"] > 0 and len(figures["playout_runs"]) == 1


@pytest.mark.fast
def test_bench_rules_refuses_missing_vectors_rather_than_measure_something_else(tmp_path):
    result = cli("littlego", "bench", "rules", "--vectors", tmp_path / "nowhere.jsonl.gz", timeout=HANG)
    assert result.returncode == 2 and result.stdout == ""
    assert "nowhere.jsonl.gz" in result.stderr and "Traceback" not in result.stderr


def test_bench_moves_reports_a_moves_cost_in_parts(tmp_path):
    folder = os.path.join(ROOT, "examples", "student-agent")
    done = cli("littlego", "bench", "moves", folder, "--repeats", "3", "--games", "2", "--json", timeout=HANG)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["language"] == "Python 3" and report["games"] == 2 and report["games_per_second"] > 0
    for part in ("outside", "interpreter", "own_sandbox"):
        assert report[part]["samples"] == 3 and report[part]["wall"] > 0 and report[part]["cpu"] > 0
    if report["served"]:
        assert report["served_move"]["cpu"] > 0 and report["server_start"]["samples"] == 3


def test_bench_search_reports_each_depth():
    figures = run_command(
        "littlego", "bench", "search", "--max-depth", "2", "--games", "0", "--budgets", "0.05", "--json"
    )
    assert [row["cpu_budget"] for row in figures["depth_within_budget"]] == [0.05]
    assert figures["depth_within_budget"][0]["min_depth"] >= 1
    assert [row["depth"] for row in figures["depths"]] == [1, 2]
    assert sum(figures["positions"].values()) == 12


def test_evolve_bench_reports_games_per_second():
    figures = run_command("evolve", "bench", "--jobs", "1", "2", "--games", "4", "--depth", "1", "--json")
    assert set(figures["games_per_second"]) == {"1", "2"} and "2" in figures["speedup"]


def make_venv_seeing_this_environment(venv):
    """A fresh venv at ``venv`` that also sees the packages of the interpreter running the tests; its python.

    ``venv --system-site-packages`` would see the base interpreter's packages, which are not this
    environment's when the tests themselves run in a venv (``sys.prefix != sys.base_prefix``): a
    ``.pth`` file adds this interpreter's site folders instead, after the venv's own, so that what is
    installed into the venv comes first and the dependencies come from here.
    """
    import site
    import sysconfig

    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    ours = list(site.getsitepackages()) + ([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout.strip()
    assert purelib != sysconfig.get_path("purelib")
    with open(os.path.join(purelib, "outer-environment.pth"), "w") as pth:
        pth.writelines(f"import site; site.addsitedir({folder!r})\n" for folder in ours if os.path.isdir(folder))
    return python


@pytest.mark.slow
def test_a_non_editable_install_works_from_any_folder(tmp_path):
    """pip install . (not editable), then the tools run from an empty folder on their package data."""
    import shutil

    source = tmp_path / "source"
    shutil.copytree(
        ROOT,
        str(source),
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".git", "runs", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", "experiments"
        ),
    )
    venv = tmp_path / "venv"
    python = make_venv_seeing_this_environment(venv)
    installed = subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-deps", str(source)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert installed.returncode == 0, installed.stdout
    shutil.rmtree(str(source))  # nothing may still read the source tree
    empty = tmp_path / "elsewhere"
    empty.mkdir()

    def littlego(*args):
        result = subprocess.run(
            [str(venv / "bin" / "littlego")] + list(args),
            cwd=str(empty),
            capture_output=True,
            text=True,
            timeout=HANG,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout

    where = subprocess.run(
        [python, "-c", "import engine; print(engine.__file__)"],
        cwd=str(empty),
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout
    assert os.path.realpath(where).startswith(os.path.realpath(str(venv))), where  # the installed copy
    assert (
        json.loads(littlego("bench", "rules", "--repeats", "1", "--playout-games", "2", "--json"))["positions"] == 10786
    )
    assert "Games: 2" in littlego("match", "champion", "random", "--games", "2", "--jobs", "1")
    littlego("bundle", "submission")
    shipped = json.load(open(os.path.join(ROOT, "params.json")))
    assert json.load(open(str(empty / "submission" / "params.json")))["weights"] == shipped["weights"]
    assert json.load(open(str(empty / "submission" / "book.json"))) == json.load(open(os.path.join(ROOT, "book.json")))


LONG_COMMANDS = [
    ("littlego", ["match", "random", "greedy"]),
    ("littlego", ["grade", "folder"]),
    ("littlego", ["tournament", "class"]),
    ("littlego", ["book", "check", "book.json"]),
    ("littlego", ["solve", "game.sgf"]),
    ("littlego", ["train", "qlearning"]),
    ("littlego", ["study", "giveaways", "out"]),
    ("littlego", ["check", "examples/plain-python"]),
    ("evolve", ["regret", "params.json", "--positions", "p.json.gz"]),
    ("evolve", ["run", "config.toml"]),
    ("evolve", ["resume", "runs/x"]),
    ("evolve", ["ship", "runs/x"]),
]


@pytest.mark.parametrize("tool, words", LONG_COMMANDS, ids=[" ".join(w[:2]) for _, w in LONG_COMMANDS])
def test_every_long_command_takes_no_progress(tool, words):
    parser = (littlego_parser if tool == "littlego" else evolve_parser)()
    assert parser.parse_args(words + ["--no-progress"]).no_progress


def test_no_progress_writes_lines_where_a_bar_would_be_drawn():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    update = counter("playing", "game", 10, stream=stream, bar=False)
    for done in range(1, 11):
        update(done)
    assert stream.getvalue().count("\n") == 10 and "playing: 10 of 10 games done" in stream.getvalue()


def test_the_python_quickstart_runs_as_written():
    """docs/quickstart.md, its code fences read as the blank lines that end a doctest's output."""
    path = os.path.join(ROOT, "docs", "quickstart.md")
    text = "\n".join("" if line.startswith("```") else line for line in open(path).read().splitlines())
    test = doctest.DocTestParser().get_doctest(text, {}, "quickstart.md", path, 0)
    runner = doctest.DocTestRunner()
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0 and len(test.examples) >= 15


def test_the_sites_home_page_includes_the_readme_instead_of_copying_it():
    index = open(os.path.join(ROOT, "docs", "index.md")).read()
    readme = open(os.path.join(ROOT, "README.md")).read()
    start = re.search(r'start="([^"]+)"', index).group(1)
    end = re.search(r'end="([^"]+)"', index).group(1)
    assert 'include-markdown "../README.md"' in index and start in readme and end in readme
    included = readme.split(start)[1].split(end)[0]
    assert "## Two commands" in included
    assert not [line for line in included.splitlines() if len(line) > 30 and line in index]  # nothing copied


GAME_COMMANDS = [
    ("littlego", ["match", "a", "b"]),
    ("littlego", ["grade", "f"]),
    ("littlego", ["tournament", "c"]),
    ("littlego", ["study", "giveaways", "out"]),
]


@pytest.mark.parametrize("tool, words", GAME_COMMANDS + [("evolve", ["ship", "runs/x"])])
def test_the_commands_that_play_games_take_one_declaration_of_how(tool, words):
    """--seed, --jobs, --no-progress, the sandbox's options (and --scheduler where games may run on a
    cluster) come from one function, add_game_options, for match, grade, tournament, the give-away study
    and ship."""
    parser = (littlego_parser if tool == "littlego" else evolve_parser)()
    how = ["--seed", "7", "--jobs", "1", "--no-progress", "--sandbox", "off", "--memory", "512"]
    args = parser.parse_args(words + how)
    assert (args.seed, args.jobs, args.no_progress, args.sandbox, args.memory) == (7, 1, True, "off", 512)
    if words[0] != "ship":
        assert parser.parse_args(words + ["--scheduler", "local:2"]).scheduler == "local:2"
    sources = [os.path.join(ROOT, "engine", "cli", name) for name in ("match.py", "course.py")]
    sources.append(os.path.join(ROOT, "evolve", "cli", "ship.py"))
    for path in sources:
        text = open(path).read()
        assert '"--seed"' not in text and '"--jobs"' not in text and ".replace(" not in text, path
