"""Players: everything that can be asked for a move, behind one interface.

Reading guide: ``base`` is the interface (``Player``) and how a player fails
(``PlayerFault`` with a ``Reason``); ``scripted`` holds the course's opponents (random,
greedy, aggressive, alphabeta); ``searcher`` is our agent as a player and ``shipped`` our
agent as it ships, at a node budget; ``program`` runs
any course agent as the course does (a process per move), with ``host`` the host's side of
the file protocol (writing ``input.txt``, reading ``output.txt``); ``gtp`` makes any GTP engine a
player and ``gnugo`` is one; ``qlearning`` is the tabular Q-learner's player and table;
``specs`` builds any of them from a spec string.
"""
