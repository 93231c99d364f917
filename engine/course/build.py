"""Agent folders recognised and built as the course's ``build.sh`` does, once per grade or tournament.

``build.sh`` looks in the folder for the files of ``LANGUAGES``, in that order, and plays the
first it finds; a compiled language is built in the folder first. Here each folder is copied
into a workspace as untrusted input (``sandbox.files``: regular files and folders only, under
the folder limit) and built there, inside the same sandbox and limits as its games, with an
argument list in which no file name can be read as an option; the original is never touched.
The build's workspace is a game's (``sandbox.workspace``: a tmpfs with a size and file quota
where littlego may mount), so a build that fills it fails by its own fault and the host's disk
never fills; only the folder as the build left it is kept, copied out under the copy's caps
(what each game copies again), and the rest (the compiler's /tmp) goes with the workspace.
An agent that cannot be built (no agent file, no compiler, a refused copy, a failed build) is a
``Built`` with the reason, and ``course_game`` makes each of its games a loss with that reason,
so that everything else goes on. A folder's name never reaches a spec: its copy is named by its
place in the list. The builds that a process keeps for the specs it meets one at a time
(``ensure_built``) are capped: the least recently used past ``BUILDS_KEPT`` builds or
``BUILDS_MB`` MiB are removed, and built again if met again.
"""

import atexit
import errno
import os
import shlex
import shutil
import sys
import tempfile
from collections import OrderedDict
from contextlib import contextmanager
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from engine.constants import BLACK, WHITE, colour_word, opponent
from engine.errors import InvalidInput
from engine.play.executors import is_remote
from engine.play.game import MatchGame
from engine.play.match import GameJob, game_job
from engine.players.base import Reason
from engine.players.specs import folder_without_command, forget_built, is_built, register_built
from engine.sandbox.files import copy_folder, excerpt, remove_tree, tail
from engine.sandbox.isolation import prepare_folder, wrap
from engine.sandbox.limits import DEFAULT_LIMITS, MIB, HostError, Limits, SandboxError, UntrustedFolderError
from engine.sandbox.process import run
from engine.sandbox.workspace import DISK_FULL, Workspace


def _sources(folder: str) -> List[str]:
    """The C++ sources of ``folder`` (its regular ``*.cpp`` files, as ``*.cpp`` finds them), each as ``./NAME``
    so that a file named like an option (``@opts.cpp``, ``-wrapper.cpp``) stays a file name."""
    return [
        "./" + name
        for name in sorted(os.listdir(folder))
        if name.endswith(".cpp") and not name.startswith(".") and os.path.isfile(os.path.join(folder, name))
    ]


class Language(NamedTuple):
    """An agent language as build.sh knows it: the file it looks for, its name, the build (the argv
    that builds it in a folder, from the folder; None: nothing to build), the build as build.sh
    writes it, and the command that plays a move (fixed: no file name of the agent's in it)."""

    source: str
    name: str
    build: Optional[Callable[[str], List[str]]]
    build_words: Optional[str]
    run: str


# build.sh's order. It runs my_player3.py with python3; here with this Python (3.8 or later), which has
# what a course agent's standard library needs. In the sandbox, ``python`` is the interpreter it starts
# here (isolation.resolve_program). javac runs no annotation processor (-proc:none: a processor shipped in
# the folder would run at build time) and finds the agent's other classes as sources only.
LANGUAGES = (
    Language("my_player.py", "Python (python)", None, None, "python my_player.py"),
    Language("my_player3.py", "Python 3", None, None, shlex.quote(sys.executable) + " my_player3.py"),
    Language(
        "my_player.cpp",
        "C++",
        lambda folder: ["g++", "-O2"] + _sources(folder) + ["-o", "exe"],
        "g++ -O2 *.cpp -o exe",
        "./exe",
    ),
    Language(
        "my_player.java",
        "Java",
        lambda folder: ["javac", "-proc:none", "-cp", "", "-sourcepath", ".", "-encoding", "UTF-8", "./my_player.java"],
        "javac my_player.java",
        "java my_player",
    ),
    Language(
        "my_player11.cpp",
        "C++11",
        lambda folder: ["g++", "-std=c++0x", "-O2"] + _sources(folder) + ["-o", "exe"],
        "g++ -std=c++0x -O2 *.cpp -o exe",
        "./exe",
    ),
)
BUILD_SECONDS = 300  # a build still running after this long (wall clock or CPU) has failed
BUILD_OUTPUT_SHOWN = 300  # characters of a failed build's output in its fault
# A folder of kept builds (a process's ``ensure_built``, an evolution run's individuals) removes the least
# recently used past either: builds, and MiB of disk of their own (a file shared with another is not theirs).
BUILDS_KEPT = 64
BUILDS_MB = 1024
_LOG_READ = 1 << 16  # bytes of the end of a failed build's log read for the news of a full folder
INSTALL_HINT = {
    "g++": "apt-get install g++",
    "javac": "apt-get install default-jdk-headless",
    "java": "apt-get install default-jre-headless",
    "python": "apt-get install python-is-python3",
}


class Built(NamedTuple):
    """An agent folder after its build: the folder as given, a short name (shown escaped), its Language's
    name (None when none was found), the player spec that plays it and, when it cannot play, why (else None),
    and where a compiled language's build wrote its output (while the build's workspace lasts)."""

    folder: str
    name: str
    language: Optional[str]
    spec: str
    error: Optional[str]
    log: Optional[str] = None

    def copy_and_command(self) -> Tuple[str, str]:
        """(the built copy, the command that plays a move there) of a build that succeeded."""
        copy, _, command = self.spec[len("cmd:") :].partition("::")
        return copy, command


def recognise(folder: str) -> Optional[Language]:
    """The Language build.sh would play in ``folder``, or None when it holds no agent file."""
    for language in LANGUAGES:
        path = os.path.join(folder, language.source)
        if os.path.isfile(path) or os.path.islink(path):
            return language
    return None


def _missing_tool(language: Language) -> Optional[str]:
    """The first program a language needs that is not installed, or None."""
    programs = [language.build_words.split()[0]] if language.build and language.build_words else []
    programs.append(language.run.split()[0])
    for program in programs:
        if not program.startswith(("./", "/")) and shutil.which(program) is None:
            return program
    return None


def _filled(box: Workspace, log_path: str) -> bool:
    """Whether a failed build filled its workspace ``box``: no room or no file left there, or its output's end
    says a write found none (the linker removes what it could not finish, so the room may be back)."""
    if not box.quota:
        return False  # no quota of its own: a full disk is the host's, and no news of the build's
    found = os.statvfs(box.top)
    if found.f_favail == 0 or found.f_bavail * found.f_frsize < box.limits.workspace_mb * MIB // 16:
        return True
    try:
        with open(log_path, "rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - _LOG_READ))
            return os.strerror(errno.ENOSPC).encode() in log.read()
    except OSError:
        return False


def _compile(language: Language, box: Workspace, log_path: str, limits: Limits) -> Optional[str]:
    """None when ``language``'s build succeeds in the workspace ``box`` under ``limits`` (in the sandbox, as the
    workspace's user), else why not."""
    assert language.build is not None and language.build_words is not None
    argv = language.build(box.folder)
    try:
        wrapped = wrap(argv, box.folder, limits, box.user, box.scratch)
    except SandboxError as error:
        return str(error)
    with open(log_path, "wb") as log:
        try:
            finished = run(wrapped, box.folder, limits, BUILD_SECONDS, BUILD_SECONDS, stdout=log, stderr=log)
        except OSError as error:
            return f"{language.build_words!r} could not start: {error.strerror or error}"
    if finished.timed_out or finished.over_cpu:
        return f"{language.build_words!r} ran past {BUILD_SECONDS} s"
    if finished.status != 0:
        memory = f" (killed at the memory limit, {limits.memory_mb} MiB)" if finished.out_of_memory else ""
        full = f", {box.describe_full()}" if _filled(box, log_path) else ""
        code = os.WEXITSTATUS(finished.status) if os.WIFEXITED(finished.status) else -os.WTERMSIG(finished.status)
        return f"{language.build_words!r} failed with status {code}{memory}{full}: {tail(log_path, BUILD_OUTPUT_SHOWN)}"
    return None


def _rewrite(folder: str, rewritten: Mapping[str, str]) -> None:
    """Write each {file: text} of ``rewritten`` into the copy ``folder`` as a new file in place of the copy's
    (a name removed first: never written through, so a file the copy shares stays as it was)."""
    for name, text in rewritten.items():
        path = os.path.join(folder, name)
        if os.path.lexists(path):
            os.unlink(path)
        with open(path, "xb") as out:
            out.write(text.encode("utf-8", "surrogateescape"))


def _copy_in(folder: str, copy: str, limits: Limits, rewritten: Mapping[str, str], shared: Optional[str]) -> None:
    """``folder`` copied to ``copy`` under the folder limit, ``rewritten`` written over it."""
    copy_folder(folder, copy, limits.folder_mb * MIB, shared)
    _rewrite(copy, rewritten)


def _built_in_workspace(
    language: Language,
    folder: str,
    copy: str,
    log: str,
    limits: Limits,
    rewritten: Mapping[str, str],
    shared: Optional[str],
) -> Optional[str]:
    """None where ``language``'s build of ``folder`` (``rewritten`` written over it) succeeds in a Workspace of
    its own and the folder as the build left it is kept at ``copy``, under the copy's caps (sharing ``shared``'s
    files); else why not. HostError where the host's own disk cannot take the copy."""
    assert language.build_words is not None
    box = Workspace(limits)
    try:
        try:
            _copy_in(folder, box.folder, limits, rewritten, None)
        except UntrustedFolderError as error:
            return f"cannot be copied: {error}"
        except OSError as error:
            why = box.host_write_failed("the copy of its folder", error) if error.errno in DISK_FULL else error
            return f"cannot be copied: {why}"
        if not os.path.isfile(os.path.join(box.folder, language.source)):
            return f"{language.source} is not a regular file"
        prepare_folder(box.folder, limits, box.user)
        failure = _compile(language, box, log, limits)
        if failure:
            return failure
        try:
            copy_folder(box.folder, copy, limits.folder_mb * MIB, shared, shown="the build's output")
        except UntrustedFolderError as error:
            return f"{language.build_words!r} left a folder that no game could copy: {error}"
        except OSError as error:  # nothing is left of it (``copy_folder``)
            if error.errno in DISK_FULL:
                raise HostError(f"the host cannot keep a build in {copy}: {error.strerror or error}") from error
            return f"its build cannot be kept: {error.strerror or error}"
        return None
    finally:
        box.close()


def build_agent(
    folder: str,
    workspace: str,
    index: Union[int, str] = 0,
    limits: Limits = DEFAULT_LIMITS,
    rewritten: Optional[Mapping[str, str]] = None,
    shared: Optional[str] = None,
) -> Built:
    """``folder``'s agent built and kept in a copy under ``workspace`` (named by ``index``); a Built (never raises
    for the agent's fault; HostError where the host's own disk fails). ``rewritten``: {file: text} written over
    the copy before its build (an individual's constants); ``shared``: a folder of the host's own, never an
    agent's, whose files the kept copy links to (read-only) where it holds the same bytes at the same place."""
    folder = os.path.abspath(folder)
    name = excerpt(os.path.basename(folder.rstrip(os.sep)), 80)
    copy = os.path.join(workspace, f"agent-{index}")
    spec = "cmd:" + copy  # how it is named while it cannot play
    shown = excerpt(folder, 200)
    if not os.path.isdir(folder):
        return Built(folder, name, None, spec, f"{shown} is not a folder")
    if os.path.islink(folder):
        return Built(
            folder, name, None, spec, f"{shown} is a symbolic link (an agent folder is copied only as a real folder)"
        )
    language = recognise(folder)
    if language is None:
        return Built(
            folder,
            name,
            None,
            spec,
            "no agent file in {} (build.sh looks for {})".format(
                shown, ", ".join(language.source for language in LANGUAGES)
            ),
        )
    missing = _missing_tool(language)
    if missing:
        return Built(
            folder,
            name,
            language.name,
            spec,
            "{} needs {}, which is not installed{}".format(
                language.source, missing, f" ({INSTALL_HINT[missing]})" if missing in INSTALL_HINT else ""
            ),
        )
    if language.build:
        log = os.path.join(workspace, f"build-{index}.log")
        failure = _built_in_workspace(language, folder, copy, log, limits, rewritten or {}, shared)
        if failure:
            return Built(folder, name, language.name, spec, failure, log)
        return Built(folder, name, language.name, f"cmd:{copy}::{language.run}", None)
    try:  # nothing to build: the copy is what plays
        _copy_in(folder, copy, limits, rewritten or {}, shared)
    except (UntrustedFolderError, OSError) as error:
        remove_tree(copy)
        return Built(folder, name, language.name, spec, f"cannot be copied: {error}")
    if not os.path.isfile(os.path.join(copy, language.source)):
        return Built(folder, name, language.name, spec, f"{language.source} is not a regular file")
    return Built(folder, name, language.name, f"cmd:{copy}::{language.run}", None)


def own_bytes(folder: str) -> int:
    """The disk that the files of ``folder`` take and share with no other (a hard link's is its other name's)."""
    taken = 0
    for root, _, files in os.walk(folder):
        for name in files:
            found = os.lstat(os.path.join(root, name))
            if found.st_nlink == 1:
                taken += found.st_blocks * 512
    return taken


def refuse_remote_builds(folders: Sequence[str], scheduler: Optional[str]) -> None:
    """ValueError where agent ``folders`` would be played through a remote Dask scheduler (tcp://, tls://): they are
    built in a temporary workspace on this machine (``built_agents``), which its workers cannot see."""
    if folders and is_remote(scheduler):
        raise InvalidInput(
            f"--scheduler {scheduler}: agent folders are built in a temporary copy on this machine, which the "
            "workers of a remote scheduler cannot see; play them here (--jobs N or --scheduler "
            "local:N), or build them yourself and name them as cmd:DIR::COMMAND, DIR at the same "
            "path on every worker"
        )


BUILD_LINES_SHOWN = 40  # of a failed build's own output, in the refusal of a command that plays it


def _agent_folder(spec: str) -> Optional[str]:
    """The agent folder a player ``spec`` names without saying how to run it (``cmd:DIR``, or DIR alone),
    where its agent is not the default ``my_player3.py`` (a C++ or Java agent, ``my_player.py``); else None."""
    folder = folder_without_command(spec)
    language = recognise(folder) if folder and os.path.isdir(folder) else None
    return folder if language is not None and language.source != "my_player3.py" else None


def build_refusal(built: Built) -> str:
    """The words of a refusal to play the agent ``built`` (a Built with an error): why, and the build's own
    output as it wrote it, its last BUILD_LINES_SHOWN lines (each unprintable character escaped)."""
    assert built.error is not None, "a refusal of a build that succeeded"
    lines: List[str] = []
    log_path = built.log
    if log_path and os.path.exists(log_path):
        with open(log_path, "rb") as log:
            text = log.read().decode("utf-8", "replace")
        lines = [excerpt(line, 500) for line in text.splitlines()[-BUILD_LINES_SHOWN:]]
    reason = built.error.split(": ", 1)[0] if lines else built.error
    return "{}: cannot play: {}{}".format(excerpt(built.folder, 200), reason, "".join("\n  " + line for line in lines))


@contextmanager
def agents_built(
    specs: Iterable[str], limits: Optional[Limits] = None, scheduler: Optional[str] = None
) -> Iterator[None]:
    """Play every agent folder among the player ``specs`` that needs a build (``cmd:DIR`` or DIR, a C++,
    Java or ``my_player.py`` agent) as build.sh builds it, for as long as the ``with`` lasts: each is
    built once, here, in the sandbox, and ``make_player`` plays the built copy under the spec as given
    (a pool forked inside the ``with`` plays it too; a Dask ``scheduler``'s workers would not, so it is
    refused). InvalidInput, before any game, where a build fails: the compiler's own lines."""
    folders = [folder for folder in dict.fromkeys(_agent_folder(spec) for spec in specs) if folder]
    if not folders:
        yield
        return
    if scheduler:  # Dask's workers are processes of their own: they would not know what was built here
        raise InvalidInput(
            f"--scheduler {scheduler}: {folders[0]} is played by folder only on the local pool (--jobs N); on a "
            "Dask cluster, build it first and name it as cmd:DIR::COMMAND (DIR at the same path on every worker)"
        )
    workspace = tempfile.mkdtemp(prefix="littlego-build-")
    try:
        for index, folder in enumerate(folders):
            _build_to_play(folder, workspace, index, limits)
        yield
    finally:
        for folder in folders:
            forget_built(folder)
        shutil.rmtree(workspace, ignore_errors=True)


class _Kept:
    """The builds a process keeps for ``ensure_built``: one folder, least recently used first."""

    def __init__(self) -> None:
        self.folder: Optional[str] = None
        self.builds: OrderedDict[str, str] = OrderedDict()  # agent folder -> its kept copy
        self.made = 0

    def place(self) -> Tuple[str, int]:
        """(the folder the builds are kept in, the index of the next), the folder made on first use."""
        if self.folder is None:
            self.folder = tempfile.mkdtemp(prefix="littlego-build-")
            atexit.register(remove_tree, self.folder)
        self.made += 1
        return self.folder, self.made

    def used(self, folder: str, copy: Optional[str] = None) -> None:
        """``folder``'s build (kept at ``copy``, where new) is the most recently used; the least recently used
        removed past BUILDS_KEPT builds or BUILDS_MB MiB (each built again when it is met again)."""
        key = os.path.abspath(folder)
        if copy is None:
            self.builds.move_to_end(key)
            return
        self.builds[key] = copy
        while len(self.builds) > 1 and (
            len(self.builds) > BUILDS_KEPT or sum(map(own_bytes, self.builds.values())) > BUILDS_MB * MIB
        ):
            oldest, kept = self.builds.popitem(last=False)
            forget_built(oldest)
            remove_tree(kept)


_KEPT = _Kept()


def ensure_built(spec: str, limits: Optional[Limits] = None) -> None:
    """Build, once in this process, the agent folder that the player ``spec`` names where it needs a build
    (a C++, Java or ``my_player.py`` agent, as ``agents_built`` builds it), so that ``make_player`` plays the
    build from then on: for the commands that meet specs one at a time (``play``, the board). InvalidInput,
    with the compiler's own lines, where it cannot be built. The build lasts as long as the process, or until
    BUILDS_KEPT others (or BUILDS_MB MiB of them) were used since: then it is built again."""
    folder = _agent_folder(spec)
    if folder is None:
        return
    if is_built(folder):
        if os.path.abspath(folder) in _KEPT.builds:  # else ``agents_built``'s, for as long as its ``with`` lasts
            _KEPT.used(folder)
        return
    workspace, index = _KEPT.place()
    copy = _build_to_play(folder, workspace, index, limits)
    _KEPT.used(folder, copy)


def _build_to_play(folder: str, workspace: str, index: int, limits: Optional[Limits]) -> str:
    """Build ``folder`` in ``workspace`` and have ``make_player`` play the build; the build's copy. InvalidInput,
    with the compiler's own lines, where it cannot be built."""
    built = build_agent(folder, workspace, index, limits or DEFAULT_LIMITS)
    if built.error:
        refusal = build_refusal(built)
        if built.log and os.path.exists(built.log):
            os.unlink(built.log)  # its lines are in the refusal: a process that meets it again keeps none
        raise InvalidInput(refusal)
    copy, command = built.copy_and_command()
    register_built(folder, copy, command)
    return copy


@contextmanager
def built_agents(
    folders: Sequence[str], limits: Optional[Limits] = None, progress: Optional[Callable[[int, int], object]] = None
) -> Iterator[List[Built]]:
    """[Built] for each folder, built under ``limits`` (None: the defaults) in a workspace that lasts as
    long as the ``with``; ``progress(done, total)`` hears of each build."""
    workspace = tempfile.mkdtemp(prefix="littlego-build-")
    built: List[Built] = []
    try:
        for index, folder in enumerate(folders):
            built.append(build_agent(folder, workspace, index, limits or DEFAULT_LIMITS))
            if progress:
                progress(index + 1, len(folders))
        yield built
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def course_game(job: Tuple[GameJob, Dict[str, str]]) -> MatchGame:
    """Worker: (a GameJob, {spec: why it cannot play}) -> its MatchGame; a game with an agent
    that cannot play is that agent's loss with the reason (Black's, when both cannot: it moves first)."""
    game, broken = job
    game = GameJob(*game)
    if game.spec_a not in broken and game.spec_b not in broken:
        return game_job(game)
    index, a_colour = game.index, game.fixed or (BLACK if game.index % 2 == 0 else WHITE)
    black, white = (game.spec_a, game.spec_b) if a_colour == BLACK else (game.spec_b, game.spec_a)
    loser = BLACK if black in broken else WHITE
    detail = f"{colour_word(loser).capitalize()} cannot play: {broken[black if loser == BLACK else white]}"
    return MatchGame(black, white, opponent(loser), Reason.CRASH, detail, [], 0, 0, [], index=index, a_colour=a_colour)
