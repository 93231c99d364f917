"""The tools around the playing core: everything a course submission does not hold.

Reading guide: ``players`` is the player interface with the course's scripted
opponents and our searcher as a player; ``program`` runs any course agent as the course
does (a process per move), ``gnugo`` drives GNU Go over GTP; ``specs`` builds any of them
from a spec string (``random``, ``champion``, ``cmd:DIR``...); ``game`` plays one game as
the course's host does; ``match`` plays many, in parallel, with their statistics and SGF;
``judge`` is a drop-in for the course's judge; ``bench`` measures speed; ``bundle`` writes
a course submission; ``cli`` is the ``littlego`` command; ``data`` holds the shipped
``params.json`` and the rules vectors as package data.

The arena imports the core (``engine``); the core imports nothing from here.
"""
