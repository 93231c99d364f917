"""A course agent of any language as the individual of a run (``[individual]`` in an experiment).

``program_individual`` makes the agent the individual: the genome is its weights file, or the
constants of its own code; ``code_individual`` builds each individual's code with its constants
rewritten; ``program_player`` plays the individual as a program player, and probes it when a run
starts (a weight its code never reads, answers that change between runs). The run's verdict against
the agent it began from is ``evolve.verdict``'s, which plays the agent through ``evolve.fitness``.
"""
