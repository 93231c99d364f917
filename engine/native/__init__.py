"""Compiled C for the tools (never shipped): the exact solver, the opening book it proves, and
a twin of the searcher that plays the same moves as ``engine.search`` about 60 times faster.

Reading guide: ``compiler`` compiles a C source once per content into a cache folder, passing it the
game's numbers from ``engine.constants`` and ``engine.symmetry`` (``bitboard.h`` is what the C
sources share); ``solver`` runs ``solve.c`` and asks it who wins; ``store`` keeps every answer in
one SQLite file that every tool reads first (``store_schema`` its tables, key and entries,
``store_file`` the file opened and checked; ``grow`` fills it; ``stored_solver`` asks the solver
only what the store lacks); ``book_build`` builds the opening book with it, and ``book_fill``
fills, extends and merges books; ``search`` loads ``search.c`` as a library (ctypes) and searches
as ``engine.search.Searcher`` does, node for node, falling back to the Python searcher where there
is no C compiler; ``sections`` walks a book's sections and ``solver_bench`` times the solver.
"""
