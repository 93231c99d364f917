"""The solved game as a ruler of weights: positions whose every move is solved, and what they measure.

``positions`` draws and solves the positions the exact ruler reads (``engine.ruler``: the positions
files, their record and held-out split, and the share of won positions a player keeps), versioned
(``position_sources`` draws them: random play, games of mixed strength, recorded games), and
``exploit`` plays won positions on against an exact adversary;
``labels`` samples positions and labels them with the compiled solver, ``fit`` fits the weights to those
labels with CMA-ES (``fit_figures`` says how well weights order them), ``pattern_fit`` the pattern
weights with them, by their gradient, and ``network_fit`` the evaluation's hidden layer to solved
positions and its search's leaves (``network_ensemble`` the mean of several such fits); ``tuners``
compares tuners at equal CPU where the evaluation decides alone, on the ruler's won positions (its table
and curves in ``tuners_report``; the tuners, ask/tell objects, in ``ask_tell``; its labels fitness, every
move of a won position labelled, in ``move_labels``); ``agent_tuners`` is its second problem, a
student's agent tuned by ``evolve run``'s own strategies on games and on the exact regret, each run
stopped at a CPU budget and its tuned agent checked and graded; ``network_tuners`` its network problem,
the gradient fit of the hidden layer beside evolution of it from the fit and from scratch. Their
commands are ``evolve.cli``'s ``solved``, ``fit``, ``network``, ``tuners``, ``agent_tuners`` and
``network_tuners``.
"""
