"""Agent folders recognised and built as the course's ``build.sh`` does, once per grade or tournament.

``build.sh`` looks in the folder for the files of ``LANGUAGES``, in that order, and plays the
first it finds; a compiled language is built in the folder first. Here each folder is copied
into a workspace and built there, so the original is never touched; an agent that cannot be
built (no agent file, no compiler, a failed build) is a ``Built`` with the reason, and
``course_game`` makes each of its games a loss with that reason, so that everything else goes on.
"""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import namedtuple
from contextlib import contextmanager

from engine.constants import BLACK, WHITE, colour_word, opponent
from engine.play.match import GameJob, MatchGame, game_job
from engine.players.base import Reason
from engine.players.program import NOT_COPIED

Language = namedtuple("Language", "source name build run")
Language.__doc__ = """An agent language as build.sh knows it: the file it looks for, its name, the command
that builds it in the folder (None: nothing to build) and the command that plays a move."""

# build.sh's order. It runs my_player3.py with python3; here with this Python (3.8 or later),
# which has what a course agent's standard library needs. In the sandbox, ``python`` is the
# interpreter it starts here (sandbox.resolve_launcher).
LANGUAGES = (
    Language("my_player.py", "Python (python)", None, "python my_player.py"),
    Language("my_player3.py", "Python 3", None, shlex.quote(sys.executable) + " my_player3.py"),
    Language("my_player.cpp", "C++", "g++ -O2 *.cpp -o exe", "./exe"),
    Language("my_player.java", "Java", "javac my_player.java", "java my_player"),
    Language("my_player11.cpp", "C++11", "g++ -std=c++0x -O2 *.cpp -o exe", "./exe"),
)
BUILD_SECONDS = 300              # a build still running after this long has failed
INSTALL_HINT = {"g++": "apt-get install g++", "javac": "apt-get install default-jdk-headless",
                "java": "apt-get install default-jre-headless", "python": "apt-get install python-is-python3"}

Built = namedtuple("Built", "folder name language spec error")
Built.__doc__ = """An agent folder after its build: the folder as given, a short name, its Language's
name (None when none was found), the player spec that plays it and, when it cannot play, why (else None)."""


def recognise(folder):
    """The Language build.sh would play in ``folder``, or None when it holds no agent file."""
    for language in LANGUAGES:
        if os.path.isfile(os.path.join(folder, language.source)):
            return language
    return None


def _missing_tool(language):
    """The first program a language needs that is not installed, or None."""
    for command in (language.build, language.run):
        if command:
            program = command.split()[0]
            if not program.startswith(("./", "/")) and shutil.which(program) is None:
                return program
    return None


def build_agent(folder, workspace):
    """``folder``'s agent built in a copy under ``workspace``; a Built (never raises for the agent's fault)."""
    folder = os.path.abspath(folder)
    name = os.path.basename(folder.rstrip(os.sep))
    spec = "cmd:" + folder                                  # how it is named while it cannot play
    if not os.path.isdir(folder):
        return Built(folder, name, None, spec, "{} is not a folder".format(folder))
    language = recognise(folder)
    if language is None:
        return Built(folder, name, None, spec, "no agent file in {} (build.sh looks for {})".format(
            folder, ", ".join(language.source for language in LANGUAGES)))
    missing = _missing_tool(language)
    if missing:
        return Built(folder, name, language.name, spec, "{} needs {}, which is not installed{}".format(
            language.source, missing, " ({})".format(INSTALL_HINT[missing]) if missing in INSTALL_HINT else ""))
    copy = tempfile.mkdtemp(prefix=name[:40] + "-", dir=workspace)
    shutil.rmtree(copy)
    shutil.copytree(folder, copy, symlinks=True, ignore=NOT_COPIED)
    if language.build:
        try:
            done = subprocess.run(language.build, shell=True, cwd=copy, stdin=subprocess.DEVNULL,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=BUILD_SECONDS)
        except subprocess.TimeoutExpired:
            return Built(folder, name, language.name, spec, "{!r} ran past {} s".format(language.build, BUILD_SECONDS))
        if done.returncode != 0:
            output = done.stdout.decode("utf-8", "replace").strip().replace("\n", " | ")
            return Built(folder, name, language.name, spec, "{!r} failed with status {}: {}".format(
                language.build, done.returncode, output[-300:]))
    return Built(folder, name, language.name, "cmd:{}::{}".format(copy, language.run), None)


def refuse_remote_builds(folders, scheduler):
    """ValueError where agent ``folders`` would be played through a Dask scheduler at ``tcp://``: they are
    built in a temporary workspace on this machine (``built_agents``), which its workers cannot see."""
    if folders and scheduler and scheduler.startswith("tcp://"):
        raise ValueError("--scheduler {}: agent folders are built in a temporary copy on this machine, which the "
                         "workers of a remote scheduler cannot see; play them here (--jobs N or --scheduler "
                         "local:N), or build them yourself and name them as cmd:DIR::COMMAND, DIR at the same "
                         "path on every worker".format(scheduler))


@contextmanager
def built_agents(folders):
    """[Built] for each folder, built in a workspace that lasts as long as the ``with``."""
    workspace = tempfile.mkdtemp(prefix="littlego-build-")
    try:
        yield [build_agent(folder, workspace) for folder in folders]
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def course_game(job):
    """Worker: (a GameJob, {spec: why it cannot play}) -> its MatchGame; a game with an agent
    that cannot play is that agent's loss with the reason (Black's, when both cannot: it moves first)."""
    game, broken = job
    game = GameJob(*game)
    if game.spec_a not in broken and game.spec_b not in broken:
        return game_job(game)
    index, a_colour = game.index, game.fixed or (BLACK if game.index % 2 == 0 else WHITE)
    black, white = (game.spec_a, game.spec_b) if a_colour == BLACK else (game.spec_b, game.spec_a)
    loser = BLACK if black in broken else WHITE
    detail = "{} cannot play: {}".format(colour_word(loser).capitalize(), broken[black if loser == BLACK else white])
    return MatchGame(black, white, opponent(loser), Reason.CRASH, detail, [], 0, 0, [], index=index, a_colour=a_colour)
