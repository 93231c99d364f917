"""What a person or a Go program talks to: the GTP engine, the terminal, the course's judge,
the browser.

Reading guide: ``board`` writes a position as a person reads it; ``terminal`` plays and
replays games at the terminal; ``gtp_server`` is the GTP engine (``littlego gtp``), with ``analyze`` its
analysis for GUIs (``lz-analyze``); ``judge``
is a drop-in for the course's judge of one ply; ``web`` is the web app of ``littlego
serve`` (the runs dashboard and the analysis board).
"""
