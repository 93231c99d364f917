"""A program individual as a player: its games, and the probes that check it when a run starts.

``program_player`` makes the player of one individual: the built agent with the individual's weights
written into the private copy of its folder that each game gets (or, for constants in its code, the
build of its code with those constants). Before a run plays a game, ``check_first_move`` has the build
play one move, and ``check_probes`` asks it the probe positions (random openings of ``PROBE_PLIES``
plies): an agent that answers one position two ways (unseeded random numbers) or ignores a gene
(``insensitive_genes``) is warned of, since its fitness would be chance or its gene never read.
"""

import json
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from engine.common.runfolder import RunError
from engine.constants import BLACK, Move
from engine.coords import move_to_text
from engine.players.base import Player, PlayerFault
from engine.players.program import ProgramPlayer
from engine.playout import random_opening
from engine.position import Position
from evolve.agents.code_individual import BuiltProgram, IndividualPlayer, UnbuiltProgram, individual_build
from evolve.genome import named


def agent_weights(genes: Sequence[str], weights: Sequence[float], base: Mapping[str, object]) -> Dict[str, object]:
    """The object an agent reads: its file's other keys as they were, then each named weight."""
    return dict(base, **named(weights, genes))


def program_player(program: BuiltProgram, weights: Sequence[float], label: str) -> Player:
    """A player of the BuiltProgram ``program`` with the genome ``weights``: its weights file written into
    the private copy of its folder that each game gets, before the game's first move; or, for constants
    in the code, the build of its code with those constants (``individual_build``), held while each game copies it."""
    if program.constants:
        built, error = individual_build(program, weights)
        if built is None:
            return UnbuiltProgram(label, error or "no build")
        return IndividualPlayer(program, weights, built, label)
    text = json.dumps(agent_weights(program.genes, [float(w) for w in weights], program.base), indent=1)
    return ProgramPlayer(
        program.folder,
        program.command,
        cpu_limit=program.cpu_limit,
        spec=label,
        limits=program.limits,
        files={program.weights_file: text + "\n"},
        keep_faults=program.faults,
    )


# The probe positions of the sensitivity check: a random opening of each of these plies, its own seed.
PROBE_PLIES = (2, 3, 4, 5, 6, 8)


def _probe_moves(
    program: BuiltProgram, weights: Sequence[float], positions: Sequence[Position]
) -> List[Union[Move, str]]:
    """The agent's answer with ``weights`` on each of ``positions``, each a game of its own (so that no
    state an agent keeps in its folder carries from one probe to the next); a fault is an answer too."""
    player = program_player(program, weights, "the probe")
    answers: List[Union[Move, str]] = []
    for position in positions:
        try:
            player.new_game(position.player, 0)
            answers.append(player.timed_move(position)[0])
        except PlayerFault as fault:
            answers.append(str(fault))
        finally:
            player.close()
    return answers


def probe_positions() -> List[Position]:
    """The positions of the start-of-run checks: a random opening of each of PROBE_PLIES plies."""
    return [random_opening(plies, seed)[0] for seed, plies in enumerate(PROBE_PLIES)]


def unsteady_answers(
    program: BuiltProgram, start: Sequence[float], positions: Sequence[Position]
) -> List[Tuple[int, Union[Move, str], Union[Move, str]]]:
    """[(ply, first answer, second answer)] where the agent, asked the same position twice with the same
    ``start`` weights, answered differently: moves drawn from unseeded random numbers, which make every
    fitness partly chance."""
    first, second = _probe_moves(program, start, positions), _probe_moves(program, start, positions)
    return [(p.moves_played, a, b) for p, a, b in zip(positions, first, second) if a != b]


def insensitive_genes(
    program: BuiltProgram,
    start: Sequence[float],
    bounds: Mapping[str, Tuple[float, float]],
    positions: Optional[Sequence[Position]] = None,
) -> List[str]:
    """The genes of ``program`` whose value, moved from ``start`` to either end of its ``bounds``, changes
    none of the agent's moves on the probe positions (``PROBE_PLIES``): weights its code may never read."""
    positions = positions or probe_positions()
    base = _probe_moves(program, start, positions)
    quiet = []
    for index, gene in enumerate(program.genes):
        moved = [list(start[:index]) + [end] + list(start[index + 1 :]) for end in bounds[gene]]
        if all(_probe_moves(program, weights, positions) == base for weights in moved):
            quiet.append(gene)
    return quiet


def check_first_move(program: BuiltProgram, weights: Sequence[float]) -> None:
    """RunError, with the agent's words, where the build cannot play a first move with ``weights``: a
    broken agent stops the run at once instead of losing every game."""
    player = program_player(program, weights, "the individual's program")
    try:
        player.new_game(BLACK, 0)
        player.timed_move(Position.initial())
    except PlayerFault as fault:
        raise RunError(
            "individual.program: the built agent cannot play a first move with the weights "
            f"{json.dumps(named(weights, program.genes))}: {fault}"
        )
    finally:
        player.close()


def check_probes(
    program: BuiltProgram,
    first: Sequence[float],
    bounds: Mapping[str, Tuple[float, float]],
    weights_file: str,
    say: Callable[[str], None],
) -> None:
    """Warn (``say``) where the agent, on the probe positions, answers one position two ways (unseeded random
    numbers) or ignores a weight (``insensitive_genes``): the start-of-run checks of ``program_built``."""
    positions = probe_positions()
    unsteady = unsteady_answers(program, first, positions)
    if unsteady:
        ply, before, after = unsteady[0]
        moves = ", then ".join(
            answer if isinstance(answer, str) else move_to_text(answer) for answer in (before, after)
        )
        say(
            f"individual.program: your agent answered the same position differently when asked twice with the "
            f"same weights (on {len(unsteady)} of {len(positions)} probe positions; at ply {ply}: {moves}): seed "
            "your agent's random numbers (from the position, say), or every fitness is partly chance and the "
            "course's games will not replay"
        )
    for gene in insensitive_genes(program, first, bounds, positions):
        say(
            f"individual.program: your agent's moves do not depend on '{gene}' on these {len(positions)} probe "
            f"positions (random openings of plies {', '.join(map(str, PROBE_PLIES))}): moving it to either end "
            f"of its bounds changed none of its moves there; "
            + (
                f"check that its code uses '{gene}' where these positions reach (or that they offer what it scores)"
                if program.constants
                else f"check that its code reads '{gene}' from {weights_file}, or that these positions offer what "
                "it scores"
            )
        )
