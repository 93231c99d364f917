"""The command tree of both command-line tools: a tool's parser (``tool_parser``), each of its command
modules adding its commands by its ``register``, and a command (``command``) whose handler's docstring is
its help; ``group`` for a command with subcommands of its own (``littlego book build``)."""

import argparse
from typing import TYPE_CHECKING, Callable, Sequence

Handler = Callable[[argparse.Namespace], int]  # a command: its arguments -> its exit status
# The subcommands of a parser, as ``subcommands`` makes them, that a command module's ``register`` adds
# to (generic to the checker alone, not at run time).
if TYPE_CHECKING:
    Subcommands = argparse._SubParsersAction[argparse.ArgumentParser]
else:
    Subcommands = argparse._SubParsersAction


def subcommands(parser: argparse.ArgumentParser, dest: str, metavar: str) -> Subcommands:
    """A required choice of subcommands under ``parser``."""
    choices = parser.add_subparsers(dest=dest, metavar=metavar)
    choices.required = True
    return choices


def tool_parser(
    prog: str, description: str, registers: Sequence[Callable[[Subcommands], None]]
) -> argparse.ArgumentParser:
    """The parser of a tool (``littlego``, ``evolve``): a required command, each group of them added by
    one of ``registers`` (a command module's ``register``)."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    commands = subcommands(parser, "command", "COMMAND")
    for register in registers:
        register(commands)
    return parser


def command(choices: Subcommands, name: str, handler: Handler) -> argparse.ArgumentParser:
    """The subcommand ``name`` run by ``handler``, whose docstring is its help: the first
    paragraph the one-line summary, the whole the description ``--help`` prints."""
    assert handler.__doc__, f"the command {name} has no docstring to be its help"
    summary, _, details = handler.__doc__.strip().partition("\n\n")
    summary = " ".join(summary.split())
    parser = choices.add_parser(name, help=summary, description=" ".join(details.split()) or summary)
    parser.set_defaults(handler=handler)
    return parser


def group(choices: Subcommands, name: str, summary: str, metavar: str) -> Subcommands:
    """A command ``name`` whose own subcommands (``metavar``) are chosen next: ``littlego book build``."""
    return subcommands(choices.add_parser(name, help=summary, description=summary), "target", metavar)
