"""The command lines: ``littlego`` (one module per command group) and what ``evolve`` shares with
it.

Reading guide: ``littlego`` assembles the parser from the command modules, each of which owns its
parser and a thin handler: ``match``; ``play`` (and replay); ``course`` (grade, tournament);
``gtp_judge`` (gtp, judge); ``serve``; ``solve``; ``store``; ``book``; ``study`` (records,
openings, study); ``train``; ``bundle``; ``bench``. ``argument_types`` holds the values an argument
may take (a user's mistake
in one is a clear line and exit 2), ``arguments`` the options several commands share and the command
tree's pieces, and ``exits`` the one way a command ends (one line for a user's mistake, a traceback
for
a bug).
"""
