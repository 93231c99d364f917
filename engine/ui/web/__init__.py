"""The web app of ``littlego serve``: a runs dashboard and an analysis board in a browser.

Reading guide: ``app`` holds the routes and how failures are answered; ``run_pages`` reads
run folders for the runs pages (through ``engine.common.generation_record``, evolve's own reader);
``board_game`` turns the moves a page sends into positions, SGF in and out; ``analysis`` is what
the board shows about a position (the solvers' values, the shipped agent's move, a
player's reply), the compiled solver's wins and losses asked in the background by
``native_values``; ``worker_jobs`` is that Python work (the reply, the agent's move, the margins,
the search, the refutations), which ``workers`` runs in processes a crash cannot take the server
down with; ``server`` binds the socket and runs uvicorn. ``static/`` holds the
pages: plain HTML, CSS and JavaScript modules, served as they are (no build, no CDN), which
put data into the page as text only (``static/html.js``) under a Content-Security-Policy
(``app.SECURITY_HEADERS``) that lets no inline script run.
"""
