"""How every command of both command-line tools ends, and with which exit status.

A user's mistake ends in one line on stderr naming what is wrong and exit status 2, never
a traceback; a Dask cluster that cannot be reached, refuses this client or goes away, and
(``evolve``) a game job that fails twice, end in one line and status 3 (``STOPPED_STATUS``:
neither the command's mistake nor a bug; a run says how to resume); Ctrl-C (or SIGTERM) ends
with a short message and status 130, the process ended if its cleanup has not finished within
30 s; a closed pipe (``| head``) ends quietly; anything else is
a bug, shown as one with its traceback (``BUG_STATUS``).
"""

import argparse
import functools
import os
import signal
import sys
import threading
import traceback
from types import FrameType
from typing import Any, Callable, Dict, Optional, Tuple, Type, Union

from engine.errors import UserError
from engine.sandbox.files import excerpt

BUG = (
    "{}: this is a bug in littlego, not a mistake of yours: please report it with the command line and the "
    "traceback above (python3 -m pip show littlego says which version ran)"
)
BUG_STATUS = 70  # EX_SOFTWARE: an internal error
STOPPED_STATUS = 3  # the machines the work ran on stopped it: a lost cluster, a game job that failed twice
INTERRUPT_STATUS = 130  # Ctrl-C or SIGTERM
INTERRUPT_GRACE = 30.0  # seconds the cleanup after Ctrl-C or SIGTERM has before the process is ended

Words = Union[str, Callable[[], str]]  # a line to print, or a function that says it when asked


def shown(message: str) -> str:
    """``message`` as the terminal is given it: its lines as they are, every other character that is not
    printable (an escape sequence's ESC, a carriage return, a bidi override) escaped, since a message may
    quote a student's file or folder names."""
    return "\n".join(excerpt(line, sys.maxsize) for line in message.split("\n"))


def run_command(
    prog: str,
    args: argparse.Namespace,
    user_errors: Tuple[Type[BaseException], ...] = (UserError,),
    on_interrupt: Words = "interrupted",
    on_os_error: Words = "",
    passed_on: Tuple[Type[BaseException], ...] = (),
) -> int:
    """Run ``args.handler(args)``; the exit status, with every expected failure as one clear line.

    ``user_errors``: exception classes whose message is the whole story (every ``UserError``). ``on_os_error``:
    a line to add after a file-system failure (for example that a run can be resumed), and
    ``on_interrupt`` the line after Ctrl-C; either may be a function that says it then. ``passed_on``:
    exceptions the caller handles itself. Anything else is a bug: its traceback, a line saying so, and
    exit status BUG_STATUS.
    """
    command = " ".join(part for part in (prog, args.command, getattr(args, "target", None)) if part)
    previous = _stop_on_signals(on_interrupt)
    try:
        status: int = args.handler(args)
        return status
    except passed_on:
        raise
    except user_errors as error:
        print(f"{command}: {shown(str(error))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``| head``): nothing more to say, and nothing to say it to.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        after = on_os_error() if callable(on_os_error) else on_os_error
        print(
            "{}: {}{}{}".format(command, shown(where), error.strerror or error, "\n" + after if after else ""),
            file=sys.stderr,
        )
        return 2
    except KeyboardInterrupt:
        print("\n" + _words(on_interrupt), file=sys.stderr)
        _SAID.set()
        return INTERRUPT_STATUS
    except Exception:
        traceback.print_exc()
        print(BUG.format(command), file=sys.stderr)
        return BUG_STATUS
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


_SAID = threading.Event()  # the interrupt's message is on stderr


def _words(on_interrupt: Words) -> str:
    return on_interrupt() if callable(on_interrupt) else on_interrupt


def _interrupt(on_interrupt: Words, signum: int, frame: Optional[FrameType]) -> None:
    """Ctrl-C or SIGTERM: stop the command as Ctrl-C does (KeyboardInterrupt), and end the process if its
    cleanup has not within INTERRUPT_GRACE: an interrupt can land while a lock is held (a logging
    handler's, a process pool queue's) that the cleanup then waits for, for ever. Everything a command
    keeps on disk is written all or nothing (checkpoints, journals), so ending it loses nothing."""
    if not any(thread.name == "littlego-interrupt" for thread in threading.enumerate()):
        timer = threading.Timer(INTERRUPT_GRACE, _end, (on_interrupt,))
        timer.name, timer.daemon = "littlego-interrupt", True
        timer.start()
    raise KeyboardInterrupt


def _end(on_interrupt: Words) -> None:
    try:
        words = "" if _SAID.is_set() else "\n" + _words(on_interrupt)
    except Exception:  # the message must not be what keeps the process alive
        words = "\ninterrupted"
    os.write(2, f"{words}\n(the cleanup did not end within {INTERRUPT_GRACE:g} s of the interrupt: ended)\n".encode())
    os._exit(INTERRUPT_STATUS)


def _stop_on_signals(on_interrupt: Words) -> Dict[int, Any]:
    """Make SIGTERM (``kill``, a scheduler ending a job) stop a command as Ctrl-C does: the same
    message, a run left resumable, no worker tracebacks (``engine.common.pools`` gives workers the
    default back); both end the process if its cleanup hangs (``_interrupt``). {signal: the handler it
    replaces}, to restore; none off the main thread, where none can be set."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    handler = functools.partial(_interrupt, on_interrupt)
    return {number: signal.signal(number, handler) for number in (signal.SIGTERM, signal.SIGINT)}
