"""Compiled C for the tools (never shipped): the exact solver and the opening book it proves.

Reading guide: ``compiler`` compiles a C source once per content into a cache folder,
passing it the game's numbers from ``engine.constants``; ``solver`` runs ``solve.c`` and
asks it who wins; ``book`` builds, extends and checks the opening book with it.
"""
