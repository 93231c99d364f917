"""A student's agent folder read for its constants as untrusted input (``engine.course.agent_constants``, issue 74):
names that are never markup nor a control character, sources read as the sandbox copies them (no link, no
FIFO), every encoding Python reads and a warning, never a crash, for code it cannot, time linear in a file's
size; and what a run writes in ``run.log`` and on the terminal shown safely (``runfolder.safe_text``)."""

import io
import json
import logging
import multiprocessing
import os
import string
import subprocess
import sys

import multiprocessing_logging
import pytest

from engine.common.progress import counter
from engine.course import agent_constants
from engine.course.agent_constants import find_constants, select
from engine.course.rewrite import patched_sources
from evolve.run_output import start_log
from tests.conftest import HANG, ROOT, cli

# What a student can put in a name, a file's name or a message: markup, a newline and a forged line, a
# terminal's escape sequence, a carriage return, DEL, a C1 control, a line separator, a bidi override.
HOSTILE = (
    "<img src=x onerror=alert(1)>\n2099-01-01 00:00:00 MainProcess INFO evolve: forged\x1b[2J\r\x7f\x85\u2028\u202e"
)
# What a constant's name may hold: an identifier's characters, a quoted key's few, the marks that build it.
NAME_CHARACTERS = set(string.ascii_letters + string.digits + "_$" + " -+,/." + "@:'[]\\")
UNSAFE = [chr(code) for code in list(range(32)) + list(range(0x7F, 0xA0))] + ["\u2028", "\u2029", "\u202e", "<", ">"]


@pytest.fixture(autouse=True)
def warnings_said_afresh(monkeypatch):
    """Each test hears the finder's warnings (a process says each one once)."""
    monkeypatch.setattr(agent_constants, "_WARNED", set(), raising=False)


def agent(tmp_path, files, name="agent"):
    """A folder ``name`` in ``tmp_path`` holding ``files`` ({name: text or bytes}); its path."""
    folder = tmp_path / name
    folder.mkdir()
    for name, content in files.items():
        data = content if isinstance(content, bytes) else content.encode("utf-8")
        (folder / name).write_bytes(data)
    return str(folder)


def names(folder):
    return [constant.name for constant in find_constants(folder)]


# -- names ----------------------------------------------------------------------------------------


@pytest.mark.fast
def test_a_dict_key_that_is_no_identifier_is_named_quoted_and_escaped_and_rewritten_by_that_name(tmp_path):
    other = "x\n\x1b[31m"
    source = f"WEIGHTS = {{{HOSTILE!r}: 1, 'a b': 2, {other!r}: 3.5, 'ok': 4, 'été': 5}}\nété = 6\n"
    folder = agent(tmp_path, {"my_player3.py": source})
    assert names(folder) == [
        r"WEIGHTS['\x3cimg src\x3dx onerror\x3dalert\x281\x29\x3e\x0a2099-01-01 00\x3a00\x3a00 MainProcess INFO "
        r"evolve\x3a forged\x1b\x5b2J\x0d\x7f\x85\u2028\u202e']",
        "WEIGHTS['a b']",
        r"WEIGHTS['x\x0a\x1b\x5b31m']",
        "WEIGHTS.ok",
        r"WEIGHTS['\xe9t\xe9']",
        r"\xe9t\xe9",
    ]
    constants = find_constants(folder)
    assert all(set(constant.name) <= NAME_CHARACTERS for constant in constants)
    chosen = select(constants, ["WEIGHTS['a b']", r"WEIGHTS['x\x0a\x1b\x5b31m']"])  # a name is its own pattern
    patched = patched_sources(folder, chosen, [7, -1.5])["my_player3.py"]
    assert patched == source.replace("'a b': 2", "'a b': 7").replace("3.5", "-1.5")
    again = agent(tmp_path, {"my_player3.py": patched}, "again")
    assert {c.name: c.value for c in find_constants(again)}[r"WEIGHTS['x\x0a\x1b\x5b31m']"] == -1.5


@pytest.mark.fast
def test_cpp_and_java_names_and_the_files_they_are_told_apart_by_are_escaped(tmp_path):
    odd_header = "<b>\x1b[2J\u202e.h"
    folder = agent(
        tmp_path,
        {
            "my_player.cpp": "#define POIDS_\u00c9 2\nconst int W = 1;\n",
            odd_header: "const int W = 2;\n",
            "Helper.java": "class Helper {\n    static final int poids_\u00e9t\u00e9 = 3;\n}\n",
        },
    )
    found = find_constants(folder)
    odd = r"\x3cb\x3e\x1b\x5b2J\u202e.h"
    assert [c.name for c in found] == [f"W@{odd}:1", r"poids_\xe9t\xe9", r"POIDS_\xc9", "W@my_player.cpp:2"]
    assert found[0].file == odd_header and found[0].where == f"{odd}:1"
    assert patched_sources(folder, found[:1], [5])[odd_header] == "const int W = 5;\n"


# -- the folder read as the sandbox copies it ------------------------------------------------------


def test_a_link_or_a_fifo_is_never_followed_or_waited_on_and_the_rest_is_read(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    os.mkfifo(str(outside / "kmsg"))  # as /proc/kmsg: reading it waits for ever
    (outside / "secret.h").write_text("#define SECRET 42\n")
    folder = agent(tmp_path, {"my_player3.py": "KOMI = 2.5\n", "board.cpp": "const int EDGE = 3;\n"})
    os.symlink(str(outside / "kmsg"), os.path.join(folder, "board.h"))
    os.symlink(str(outside / "secret.h"), os.path.join(folder, "secret.h"))
    os.symlink("board.cpp", os.path.join(folder, "alias.cpp"))  # inside the folder, a link still
    os.mkfifo(os.path.join(folder, "pipe.h"))
    listed = cli("evolve", "constants", folder, "--json")  # a wait on a FIFO: the test's timeout names it
    assert listed.returncode == 0, listed.stderr
    assert [row["name"] for row in json.loads(listed.stdout)] == ["EDGE", "KOMI"]
    warned = listed.stderr.splitlines()
    for name, kind in (("alias.cpp", "a symbolic link"), ("board.h", "a symbolic link"), ("pipe.h", "a FIFO")):
        assert any(line.startswith(f"warning: {name} is {kind}") for line in warned), listed.stderr
    assert len(warned) == 4 and "SECRET" not in listed.stdout + listed.stderr


@pytest.mark.fast
def test_a_source_past_the_size_an_agent_has_is_skipped_and_the_others_are_read(tmp_path, caplog):
    big = "// padding\n" * (agent_constants.SOURCE_BYTES // 11 + 1) + "const int BIG = 1;\n"
    folder = agent(tmp_path, {"my_player.cpp": "const int DEPTH = 2;\n", "tables.h": big})
    assert names(folder) == ["DEPTH"]
    assert [r.getMessage() for r in caplog.records] == [
        "warning: tables.h is larger than 1 MiB: not an agent's source; no constant is looked for in it"
    ]


# -- Python that Python reads, in any encoding; a warning for what it cannot read -----------------

DEEP = 10_000


@pytest.mark.parametrize(
    "bad, why",
    [
        ("x = " + "(" * DEEP + "1" + ")" * DEEP + "\n", "too many nested parentheses"),
        ("x = " + "+".join(["1"] * 10 * DEEP) + "\n", "deeper than Python's parser reaches"),
        ("x = " + "-" * 10 * DEEP + "1\n", "deeper than Python's parser reaches"),
        ("x = f" + "()" * 10 * DEEP + "\n", "deeper than Python's parser reaches"),
        ("x = 1\0\n", "null bytes"),
        (b"x = '\xe9'\n", "invalid or missing encoding declaration"),
        (b"x = 1\ny = 2\nz = '\xe9'\n", "is not utf-8, which Python reads it as (line 3: byte 0xe9)"),
        (b"# -*- coding: no-such-codec -*-\nx = 1\n", "unknown encoding"),
        ("def f(:\n", "line 1: "),
        ("x = '\u202e' \u202e\n", "line 1: invalid non-printable character U+202E"),
    ],
    ids=["parentheses", "chain", "unary", "calls", "null", "not-utf8", "not-utf8-later", "codec", "syntax", "bidi"],
)
def test_python_that_python_cannot_read_is_skipped_with_a_warning_naming_it_and_why(tmp_path, caplog, bad, why):
    folder = agent(tmp_path, {"my_player3.py": "KOMI = 2.5\n", "bad.py": bad})
    assert names(folder) == ["KOMI"]
    (message,) = [r.getMessage() for r in caplog.records]
    assert message.startswith("warning: bad.py ") and why in message and "\n" not in message
    assert not set(message) & set(UNSAFE)


def test_python_that_python_reads_is_read_however_deep_its_blocks(tmp_path):
    elifs = "if a:\n    X = 1\n" + "elif a:\n    X = 2\n" * 500 + "else:\n    Y = 3\n"  # a legal agent's
    assert names(agent(tmp_path, {"my_player3.py": elifs}))[-1] == "Y"


@pytest.mark.fast
@pytest.mark.parametrize(
    "coding, encoding, words",
    [
        ("# -*- coding: latin-1 -*-\n", "latin-1", "café, naïve"),
        ("# vim: set fileencoding=cp1252 :\n", "cp1252", "l’été"),
        ("# coding: shift_jis\n", "shift_jis", "ソース"),  # 0x83 0x5c: a backslash's byte inside a character
        ("\ufeff", "utf-8", "a BOM and été"),
        ("", "utf-8", "a form feed \x0c and a line separator \u2028 are no line breaks"),
    ],
    ids=["latin-1", "cp1252", "shift_jis", "bom", "separators"],
)
def test_every_encoding_python_reads_is_read_and_rewritten_byte_for_byte(tmp_path, coding, encoding, words):
    text = f"{coding}NAME = '{words}'; BONUS = 3  # {words}\n# {words}\nW = -2.5\n"
    source = text.encode(encoding)
    folder = agent(tmp_path, {"my_player3.py": source})
    constants = find_constants(folder)
    assert [(c.name, c.value) for c in constants] == [("BONUS", 3.0), ("W", -2.5)]
    patched = patched_sources(folder, constants, [7, 1.25])["my_player3.py"].encode("utf-8", "surrogateescape")
    assert patched == source.replace(b"BONUS = 3", b"BONUS = 7").replace(b"W = -2.5", b"W = 1.25")


# -- time linear in a file's size -------------------------------------------------------------------

MEASURE = r"""
import gc, json, os, sys, time
from engine.course.agent_constants import find_constants
folder, name, head, unit, tail = json.loads(sys.argv[1])
def seconds(size):
    with open(os.path.join(folder, name), "w", encoding="utf-8") as handle:
        handle.write(head + unit * (size // len(unit)) + tail)
    best = float("inf")
    for _ in range(3):
        gc.collect()
        started = time.process_time()
        find_constants(folder)
        best = min(best, time.process_time() - started)
    return best
print(json.dumps([seconds(64 * 1024), seconds(256 * 1024)]))
"""
MEASURED_SECONDS = 0.05  # a time below this is taken as this: a ratio of noise says nothing


@pytest.mark.parametrize(
    "name, head, unit, tail",
    [
        ("my_player.cpp", "#if 0\n", "const ", "\n#endif\n"),  # the issue's: g++ takes it, it took 1.7 h a MiB
        ("my_player.cpp", "#define X", " ", "y\n"),
        ("my_player.cpp", "const int a =", " ", "y;\n"),
        ("my_player.cpp", "", "const int a = 1;\n", ""),
        ("my_player.java", "class A {\n", "static ", "}\n"),
        ("my_player.java", "class A {\n", "int x = 1;\n", "}\n"),
        ("my_player3.py", "", "s = '" + "é" * 48 + "'; b = 1; ", "\n"),  # one line: each place in it found once
    ],
    ids=["if-0-of-const", "define-spaces", "const-spaces", "cpp-lines", "modifiers", "java-fields", "python-line"],
)
def test_reading_takes_time_linear_in_a_files_size(tmp_path, name, head, unit, tail):
    """Four times the file takes less than eight times the CPU (quadratic: sixteen), in a process of its own
    that a pattern gone quadratic or worse cannot hang the tests with."""
    folder = tmp_path / "agent"
    folder.mkdir()
    measured = subprocess.run(  # a pattern that never ends: the test's timeout names it
        [sys.executable, "-c", MEASURE, json.dumps([str(folder), name, head, unit, tail])],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    assert measured.returncode == 0, measured.stderr
    small, large = json.loads(measured.stdout)
    assert large < 8 * max(small, MEASURED_SECONDS), (small, large)


# -- what a run writes in run.log and on the terminal --------------------------------------------


def _a_worker_says(words):
    logging.getLogger("evolve.fitness").warning("individual 1 lost game 2 by its fault: %s", words)


def test_run_log_shows_each_records_text_safely_a_workers_too(tmp_path):
    logger = start_log(str(tmp_path))
    try:
        logger.warning("individual 0 lost game 1 by its fault: %s", HOSTILE)
        worker = multiprocessing.get_context("fork").Process(target=_a_worker_says, args=(HOSTILE,))
        worker.start()
        worker.join(60)
    finally:
        multiprocessing_logging.uninstall_mp_handler(logger)
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
            handler.close()
    text = (tmp_path / "run.log").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) == 4 and all(" WARNING evolve" in line for line in lines[::2]), text
    assert not any(line.startswith("2099") for line in lines), "a record forged a line of its own"
    assert not set(text.replace("\n", "")) & set(UNSAFE[:-2]), text
    assert r"forged\x1b[2J\r\x7f\x85\u2028\u202e" in lines[1]


@pytest.mark.fast
def test_a_progress_line_shows_what_it_counts_safely():
    out = io.StringIO()
    update = counter("exploit " + HOSTILE, "game", 1, stream=out)
    update(1)
    (line,) = out.getvalue().splitlines()
    assert line.startswith(r"exploit <img src=x onerror=alert(1)>\n2099-01-01") and line.endswith(
        "1 of 1 game done (0 s)"
    )
    assert not set(line) & set(UNSAFE[:-2])
