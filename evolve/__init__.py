"""Evolution of the evaluation weights with DEAP, and fitting them to the exact solver's labels.

Reading guide: ``config`` reads and validates an experiment (``experiments/*.toml``), whose
keys and records ``schema`` declares;
``genome`` defines the DEAP types (once, at import) and the variation operators within
per-feature bounds; ``fitness`` turns individuals into game jobs, plays them (pure
functions, run on a process pool or a Dask cluster) and folds the outcomes into
fitnesses; ``program_individual`` makes a course agent of any language the individual (its weights
file, or the constants of its code, rewritten: ``code_individual`` builds each such individual's
code; ``program_player`` plays it, and probes it when a run starts); ``spsa`` is the SPSA strategy;
``loop`` is the generation loop in DEAP's idiom, ``generations`` what each generation records; ``checkpoint`` writes and
reads its checkpoints and the run's lock; ``runs`` reads a run folder back (log, plot,
export); ``ship`` replaces params.json only after a test at the playing budget accepts the
weights; ``bench`` measures fitness games per second; ``positions`` solves and keeps the
positions the exact fitnesses read (``position_sources`` draws them): ``regret`` (is a won
position kept?) and ``exploit`` (against an exact adversary); ``labels`` samples positions and
labels them with the compiled solver, ``fit`` fits the weights to those labels with CMA-ES
(``fit_figures`` says how well weights order them); ``tuners`` compares tuners at equal CPU where
the evaluation decides alone, on won positions whose every move is solved (the tuners, ask/tell
objects, in ``ask_tell``; its labels fitness, every move of a won position labelled, in
``move_labels``); ``cli`` is the ``evolve`` command. It imports the engine and its tools, never the
other way round.
"""
