"""Untrusted programs (course agents and their builds) run so that they cannot touch the grader.

- ``limits``: the ``Limits`` record (mode and sizes) every untrusted run is given;
- ``isolation``: whether this machine can isolate a run, and the argv of one (``wrap``): in the sandbox
  where it works, else with a warning (``auto``) or not at all (``strict``);
- ``bwrap``: the bubblewrap sandbox around a run's own folder copy, its clean environment, and what runs
  inside it before the program (the sandbox's own user, the process limit, the moves' seccomp filter);
- ``accounting``: the cgroups that count CPU, memory and tasks over all of a run's processes;
- ``process``: ``run``, one untrusted run started, watched and ended with everything it started;
- ``gamebox``: one sandbox a program player's game, its moves forked from ``move_server``, the move
  server that runs inside it and confines each move (no capability, no namespace of its own making);
- ``spares``: each game's sandbox started while the game before it plays, fresh all the same;
- ``workspace``: the folder a copy lives in for a game, with a disk and file quota where it can have one;
- ``users``: under root, a uid of its own for each living sandbox, held by a lock while it lives;
- ``files``: an agent's folder copied and removed, and its ``output.txt`` read, as untrusted input.
"""
