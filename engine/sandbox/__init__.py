"""Untrusted programs (course agents and their builds) run so that they cannot touch the grader.

- ``limits``: the ``Limits`` record (mode and sizes) every untrusted run is given;
- ``isolation``: the bubblewrap sandbox around a run's own folder copy, and its clean environment;
- ``accounting``: the cgroups that count CPU, memory and tasks over all of a run's processes;
- ``process``: ``run``, one untrusted run started, watched and ended with everything it started;
- ``gamebox``: one sandbox a program player's game, kept between games, its moves forked from
  ``forkserver``, the move server that runs inside it;
- ``workspace``: the folder a copy lives in for a game, with a disk and file quota where it can have one;
- ``files``: an agent's folder copied and removed, and its ``output.txt`` read, as untrusted input.
"""
