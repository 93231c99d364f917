"""Untrusted programs (course agents and their builds) run so that they cannot touch the grader.

- ``limits``: the ``Limits`` record (mode and sizes) every untrusted run is given;
- ``isolation``: the bubblewrap sandbox around a run's own folder copy, and its clean environment;
- ``accounting``: the cgroups that count CPU, memory and tasks over all of a run's processes;
- ``process``: ``run``, one untrusted run started, watched and ended with everything it started;
- ``files``: an agent's folder copied and its ``output.txt`` read as untrusted input.
"""
