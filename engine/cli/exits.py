"""How every command of both command-line tools ends, and with which exit status.

A user's mistake ends in one line on stderr naming what is wrong and exit status 2, never
a traceback; a Dask cluster that cannot be reached, refuses this client or goes away, and
(``evolve``) a game job that fails twice, end in one line and status 3 (``STOPPED_STATUS``:
neither the command's mistake nor a bug; a run says how to resume); Ctrl-C (or SIGTERM) ends
with a short message and status 130; a closed pipe (``| head``) ends quietly; anything else is
a bug, shown as one with its traceback (``BUG_STATUS``).
"""

import os
import signal
import sys
import threading
import traceback

from engine.errors import UserError

BUG = (
    "{}: this is a bug in littlego, not a mistake of yours: please report it with the command line and the "
    "traceback above (python3 -m pip show littlego says which version ran)"
)
BUG_STATUS = 70  # EX_SOFTWARE: an internal error
STOPPED_STATUS = 3  # the machines the work ran on stopped it: a lost cluster, a game job that failed twice


def run_command(prog, args, user_errors=(UserError,), on_interrupt="interrupted", on_os_error="", passed_on=()):
    """Run ``args.handler(args)``; the exit status, with every expected failure as one clear line.

    ``user_errors``: exception classes whose message is the whole story (every ``UserError``). ``on_os_error``:
    a line to add after a file-system failure (for example that a run can be resumed), and
    ``on_interrupt`` the line after Ctrl-C; either may be a function that says it then. ``passed_on``:
    exceptions the caller handles itself. Anything else is a bug: its traceback, a line saying so, and
    exit status BUG_STATUS.
    """
    command = " ".join(part for part in (prog, args.command, getattr(args, "target", None)) if part)
    previous = _stop_on_sigterm()
    try:
        return args.handler(args)
    except passed_on:
        raise
    except user_errors as error:
        print(f"{command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (``| head``): nothing more to say, and nothing to say it to.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        after = on_os_error() if callable(on_os_error) else on_os_error
        print(
            "{}: {}{}{}".format(command, where, error.strerror or error, "\n" + after if after else ""), file=sys.stderr
        )
        return 2
    except KeyboardInterrupt:
        print("\n" + (on_interrupt() if callable(on_interrupt) else on_interrupt), file=sys.stderr)
        return 130
    except Exception:
        traceback.print_exc()
        print(BUG.format(command), file=sys.stderr)
        return BUG_STATUS
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _stop_on_sigterm():
    """Make SIGTERM (``kill``, a scheduler ending a job) stop a command as Ctrl-C does: the same
    message, a run left resumable, no worker tracebacks (``engine.common.pools`` gives workers the
    default back). The handler it replaces, to restore; None off the main thread, where none can be set."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.signal(signal.SIGTERM, _interrupt)
