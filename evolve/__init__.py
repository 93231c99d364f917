"""Evolution of the evaluation weights with DEAP, and fitting them to the exact solver's labels.

Reading guide: ``config`` reads and validates an experiment (``experiments/*.toml``) into the records of
``experiment``, with ``config_genome``'s genes, bounds and start weights; ``genome`` defines the DEAP types
(once, at import) and the variation operators within per-feature bounds, and ``params_genes`` a params file's
weights as named genes (which parts of a fitted file a run evolves, the layer's and the patterns' weights
among them); ``fitness`` turns individuals into game jobs and plays them (pure functions, run on a process
pool or a Dask cluster), ``rounds`` plays a generation's in rounds and folds the outcomes into fitnesses, with
``regret_fitness``'s share of won positions kept where [regret] asks; ``spsa`` is the SPSA strategy; ``tuner``
asks and tells the config's strategy a generation at a time (the run and the tuner benchmark alike); ``loop``
is the generation loop in DEAP's idiom, ``run_output`` what a run writes beside its checkpoint (its folder,
its log, each generation's line, the best weights), ``generations`` what each generation records, ``verdict``
the run's best against the agent it began from; ``checkpoint`` writes and reads its checkpoints and the run's
lock; ``runs`` reads a run folder back (log, plot, export); ``bench`` measures fitness games per second. Four
subpackages hold ideas of their own: ``experiment``, an experiment's records and keys; ``shipping`` replaces
params.json only after a test at the playing budget accepts the weights; ``agents`` makes a course agent of
any language the individual (its weights file, or the constants of its code), and ``solved`` measures weights
on positions whose every move is solved (the exact regret and exploitability, the solver's labels and the fit
to them, the tuner benchmark). ``cli`` is the ``evolve`` command. It imports the engine and its tools, never
the other way round.
"""
