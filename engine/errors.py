"""The errors a user causes, apart from bugs.

Every expected failure that comes from what a user gave (a file, a folder, an option, a
player spec, a board, a move) derives from ``UserError``: its message says what is wrong and
where, and is the whole story, so the command-line tools print it as one line and exit 2.
Anything else that escapes a command is a bug in littlego: the tools print its traceback and
say so. ``InvalidInput`` is the plain case, a value that cannot be used; it is also a
``ValueError``, as the other user errors that were ValueErrors before stay.
"""


class UserError(Exception):
    """Something the user gave cannot be used; the message says what and where."""


class InvalidInput(UserError, ValueError):
    """A value the user gave (a spec, an option, a board, a move) that cannot be used."""


class ParamsError(UserError, ValueError):
    """A params file or object that cannot be used; the message says what and where."""
