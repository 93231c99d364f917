"""Playing games: one game, many in parallel, their figures and their records.

Reading guide: ``game`` plays one game as the course's host does and returns a
``GameRecord``; ``match`` plays many between two players (on an ``executors`` pool or a
Dask cluster), and ``summary`` sums them up in a ``MatchSummary`` and its report; ``stats`` is
the pure statistics (Wilson interval, Elo, SPRT); ``sgf`` writes and reads game records and
``records`` reads a match's records from wherever they are kept;
``settings`` declares how games are played, once; ``journal`` keeps a match's finished games so
that it resumes; ``openings`` says which side wins each random opening.
"""
