"""The ``littlego`` command line, one module per command group.

Reading guide: ``littlego`` assembles the parser from the command modules, each of which owns its
parser and a thin handler: ``match``; ``check`` (a player on solved positions); ``play`` (and replay);
``course`` (grade, tournament); ``gtp_judge`` (gtp, judge); ``serve``; ``solve``; ``store``; ``book``;
``study`` (records, openings, study); ``train``; ``bundle``; ``bench``. What a command line is made of (argument
values, shared options, exit statuses) lives in ``parts``, which ``evolve`` uses too.
"""
