"""Evolution of the evaluation weights with DEAP.

Reading guide: ``config`` reads and validates an experiment (``experiments/*.toml``);
``genome`` defines the DEAP types (once, at import) and the variation operators within
per-feature bounds; ``fitness`` turns individuals into game jobs, plays them (pure
functions, run on a process pool) and folds the outcomes into fitnesses; ``loop`` is
the generation loop in DEAP's idiom with checkpoints and resume; ``runs`` reads a run
folder back (log, plot, export); ``cli`` is the ``evolve`` command.
"""
