"""The exact ruler: how much of a won game a player keeps, on positions the solver settled.

``position_set`` reads and writes the positions files (every legal move's exact result) and holds their
train/held-out split; ``measure`` asks any player each won position alone and counts the positions it
keeps, by ply and colour, with each one it gives away; ``fresh_search`` is our own searcher as the ruler
asks it (a fresh search a position, as the agent plays). The regret fitness, the tuner benchmark, the
network's fit, the exploitability report and ``littlego check`` all measure through these.
"""
