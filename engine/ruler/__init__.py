"""The exact ruler: how much of a won game a player keeps, on positions the solver settled.

``position_set`` reads and writes the positions files (every legal move's exact result) and holds their
train/held-out split; ``measure`` asks any player each won position alone and counts the positions it
keeps, by ply and colour, with each one it gives away; ``fresh_search`` is our own searcher as the ruler
asks it (a fresh search a position, as the agent plays). The regret fitness, the tuner benchmark, the
network's fit, the exploitability report and ``littlego check`` all measure through these.

``littlego check`` is ``check`` (any player spec, an agent folder included, asked on a pool beside the
reference players, with the files an agent's moves left), ``reference_answers`` (the reference players'
answers, recorded with the shipped positions), ``history`` (moves from the empty board that reach a solved
position, for the board of ``littlego serve``) and ``check_report`` (the result as text, JSON and SGF).
"""
