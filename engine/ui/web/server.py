"""Starting the web app: a socket bound first (so the address printed is the one served, a
port of 0 included), uvicorn serving it, in the foreground or, for tests, in a thread."""

import secrets
import socket
import threading
import time
from typing import Callable, NamedTuple, Optional, Tuple

import uvicorn

from engine.common.hosts import is_loopback
from engine.sandbox.limits import Limits
from engine.ui.web.analysis import Analyst
from engine.ui.web.app import LOOPBACK_NAMES, create_app
from engine.ui.web.workers import Workers

TOKEN_BYTES = 24  # of the secret in the printed address (32 URL-safe characters)


class Served(NamedTuple):
    """A running ``littlego serve``: its URL (the token in it), the uvicorn server, the thread serving it
    and its Analyst."""

    url: str
    server: uvicorn.Server
    thread: threading.Thread
    analyst: Analyst


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on (host, port); OSError saying why not (a port in use, a bad host)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(64)
    return sock


def url_of(sock: socket.socket, token: str) -> str:
    host, port = sock.getsockname()[:2]
    return "http://{}:{}/?token={}".format(f"[{host}]" if ":" in host else host, port, token)


def make_server(
    runs_dir: str,
    host: str,
    port: int,
    solve_seconds: float,
    limits: Optional[Limits] = None,
    store: Optional[str] = None,
    allow_programs: bool = False,
) -> Tuple[uvicorn.Server, socket.socket, Analyst, str]:
    """(uvicorn server, bound socket, Analyst, token) for the app on (host, port); ``limits``: the sandbox
    Limits of program players (None: the defaults); ``store``: the store of solved positions (a path; None:
    none); ``allow_programs``: whether the board plays players that run a command (on loopback only)."""
    local = is_loopback(host)
    workers, replies = Workers(), Workers(1)  # the analysis, and the opponents' moves apart
    workers.start()
    analyst = Analyst(workers, seconds=solve_seconds, limits=limits, store=store, replies=replies)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    app = create_app(
        runs_dir, analyst, hosts=LOOPBACK_NAMES if local else None, allow_programs=allow_programs and local, token=token
    )
    sock = bind(host, port)
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    return uvicorn.Server(config), sock, analyst, token


def serve(
    runs_dir: str,
    host: str,
    port: int,
    solve_seconds: float,
    announce: Callable[[str], object] = print,
    limits: Optional[Limits] = None,
    store: Optional[str] = None,
    allow_programs: bool = False,
) -> None:
    """Serve until Ctrl-C; ``announce(url)`` is called once the socket listens, with the URL that holds the
    token."""
    server, sock, analyst, token = make_server(runs_dir, host, port, solve_seconds, limits, store, allow_programs)
    try:
        announce(url_of(sock, token))
        server.run(sockets=[sock])
    finally:
        analyst.close()
        analyst.workers.close()
        analyst.replies.close()
        sock.close()


def serve_in_thread(
    runs_dir: str,
    solve_seconds: float = 2.0,
    host: str = "127.0.0.1",
    store: Optional[str] = None,
    allow_programs: bool = False,
) -> Served:
    """The app on a free local port, in a daemon thread, with the store of solved positions at
    ``store`` (a path; None: none); a Served (stop it with ``stop``)."""
    server, sock, analyst, token = make_server(
        runs_dir, host, 0, solve_seconds, store=store, allow_programs=allow_programs
    )
    # Not the main thread: uvicorn (0.29 on, as pyproject asks) installs no signal handlers there.
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and thread.is_alive() and time.time() < deadline:
        time.sleep(0.02)
    return Served(url_of(sock, token), server, thread, analyst)


def stop(served: Served) -> None:
    served.server.should_exit = True
    served.thread.join(10)
    served.analyst.close()
    served.analyst.workers.close()
    served.analyst.replies.close()
