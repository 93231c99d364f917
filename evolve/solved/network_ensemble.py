"""The mean of several fits of the evaluation's hidden layer: ``evolve network --ensemble N``.

Each member is ``network_fit.fit_rounds`` from its own seed; the ensemble evaluates their mean: each
feature's weight is the members' mean, and their layers stand side by side, each unit's out weight divided
by their number, so the engine's one layer (at most ``MAX_UNITS`` units) computes it.
"""

import functools
from typing import Callable, List, NamedTuple, Sequence, Tuple

from engine.common.pools import cpu_with_children, process_pool
from engine.native.stored_solver import Solving
from engine.network import Network, scaled
from engine.params import Params, make_params
from engine.ruler.fresh_search import FreshSearch
from engine.ruler.measure import measure
from engine.ruler.position_set import SolvedPosition, WonPositions
from evolve.solved.network_fit import NetworkOptions, RoundFigures, fit_rounds


def averaged(networks: Sequence[Network]) -> Network:
    """One layer whose value is the mean of ``networks``' (up to rounding): all their units, in order, each
    ``out`` weight divided by their number."""
    share = 1.0 / len(networks)
    return Network(units=tuple(unit for network in networks for unit in scaled(network, share).units))


def ensemble(members: Sequence[Params]) -> Params:
    """The mean evaluation of ``members`` (fits of ``fit_rounds``: flat weights and a layer each): each
    feature's weight is their mean, and their layers stand side by side, each unit's out weight divided by
    their number (``averaged``); the first member's search settings and provenance."""
    if any(member.network is None or member.endgame or member.patterns for member in members):
        raise ValueError("an ensemble joins fits of flat weights and a layer, nothing else")
    first = members[0]
    weights = {name: sum(member.weights[name] for member in members) / len(members) for name in first.weights}
    # the keys are search settings, never ``endgame``, which mypy cannot tell
    joined = make_params(weights, first.provenance, "an ensemble of fits", **first.search())  # type: ignore[arg-type]
    return joined.with_network(averaged([member.network for member in members if member.network]))


class EnsembleFit(NamedTuple):
    """``fit_ensemble``'s result: the Params written (one member's, or the ensemble's), each member's
    (seed, rounds' figures), the held-out won positions the written Params keep, and the CPU seconds of
    every fit and count."""

    params: Params
    members: Tuple[Tuple[int, Tuple[RoundFigures, ...]], ...]
    kept: int
    cpu_seconds: float


def fit_ensemble(
    won: WonPositions,
    depth: int,
    settings: Params,
    options: NetworkOptions,
    count: int,
    solving: Solving,
    report: Callable[[str], object] = print,
    extra: Sequence[SolvedPosition] = (),
) -> EnsembleFit:
    """``fit_rounds`` (on ``won`` at ``depth``) from each of the ``count`` seeds ``options.seed`` onwards;
    where ``count`` > 1 their ``ensemble``, its held-out won positions counted at ``depth``."""
    fitted: List[Params] = []
    members: List[Tuple[int, Tuple[RoundFigures, ...]]] = []
    for seed in range(options.seed, options.seed + count):
        if count > 1:
            report(f"member {seed - options.seed + 1} of {count}: seed {seed}")
        params, history = fit_rounds(won, depth, settings, options._replace(seed=seed), solving, report, extra)
        fitted.append(params)
        members.append((seed, tuple(history)))
    cpu = sum(figures.cpu_seconds for _, history in members for figures in history)
    if count == 1:
        return EnsembleFit(fitted[0], tuple(members), members[0][1][-1].kept, cpu)
    started = cpu_with_children()
    joined = ensemble(fitted)
    with process_pool(solving.jobs) as pool:
        searched = FreshSearch(joined.with_settings(depth=depth), plain=True)  # as fit_rounds scores a round
        (held_out,) = measure([searched], won.held_out, run=functools.partial(pool.imap, chunksize=1))
    report(f"the ensemble of {count}: kept {held_out.kept} of {held_out.won} held-out won positions")
    return EnsembleFit(joined, tuple(members), held_out.kept, cpu + cpu_with_children() - started)
