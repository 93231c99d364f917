"""The tools around the playing core: everything a course submission does not hold.

Reading guide: ``players`` is the player interface with the course's scripted
opponents and our searcher as a player; ``program`` runs any course agent as the course
does (a process per move); ``gtp`` is the GTP engine (``littlego gtp``) and makes any GTP
engine a player, GNU Go (``gnugo``) among them; ``specs`` builds any of them from a spec
string (``random``, ``champion``, ``cmd:DIR``, ``gtp:COMMAND``...); ``game`` plays one game
as the course's host does; ``match`` plays many, in parallel (``pool``), with their
statistics and SGF records (``sgf``); ``human`` lets a person play and replay games in the
terminal; ``judge`` is a drop-in for the course's judge; ``bench`` measures speed;
``bundle`` writes a course submission; ``cli`` is the ``littlego`` command, ``commandline``
what it shares with ``evolve``; ``data`` holds the shipped ``params.json`` and the rules
vectors as package data.

The arena imports the core (``engine``); the core imports nothing from here.
"""
