"""The command lines: ``littlego`` (one module per command group) and what ``evolve`` shares with it.

Reading guide: ``arguments`` holds the argument types and the one way a command ends
(a clear line and exit 2 for a user's mistake); ``littlego`` assembles the parser from
the command modules, each of which owns its parser and a thin handler.
"""
