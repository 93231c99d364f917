"""Starting the web app: a socket bound first (so the address printed is the one served, a
port of 0 included), uvicorn serving it, in the foreground or, for tests, in a thread."""

import ipaddress
import socket
import threading
import time
from typing import NamedTuple

import uvicorn

from engine.ui.web.analysis import Analyst
from engine.ui.web.app import LOOPBACK_NAMES, create_app
from engine.ui.web.workers import Workers


class Served(NamedTuple):
    """A running ``littlego serve``: its URL, the uvicorn server, the thread serving it and its Analyst."""

    url: str
    server: uvicorn.Server
    thread: threading.Thread
    analyst: Analyst


def is_loopback(host):
    """Whether ``host`` (a name or an address) is this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host, port):
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


def url_of(sock):
    host, port = sock.getsockname()[:2]
    return "http://{}:{}/".format(f"[{host}]" if ":" in host else host, port)


def make_server(runs_dir, host, port, solve_seconds, limits=None, store=None):
    """(uvicorn server, bound socket, Analyst) for the app on (host, port); ``limits``: the sandbox
    Limits of program players (None: the defaults); ``store``: the store of solved positions (a path; None: none)."""
    local = is_loopback(host)
    workers = Workers()
    workers.start()
    analyst = Analyst(workers, seconds=solve_seconds, limits=limits, store=store)
    app = create_app(runs_dir, analyst, hosts=LOOPBACK_NAMES if local else None, allow_programs=local)
    sock = bind(host, port)
    config = uvicorn.Config(app, log_level="warning", access_log=False, timeout_graceful_shutdown=2)
    return uvicorn.Server(config), sock, analyst


def serve(runs_dir, host, port, solve_seconds, announce=print, limits=None, store=None):
    """Serve until Ctrl-C; ``announce(url)`` is called once the socket listens."""
    server, sock, analyst = make_server(runs_dir, host, port, solve_seconds, limits, store)
    try:
        announce(url_of(sock))
        server.run(sockets=[sock])
    finally:
        analyst.close()
        analyst.workers.close()
        sock.close()


def serve_in_thread(runs_dir, solve_seconds=2.0, host="127.0.0.1", store=None):
    """The app on a free local port, in a daemon thread, with the store of solved positions at
    ``store`` (a path; None: none); a Served (stop it with ``stop``)."""
    server, sock, analyst = make_server(runs_dir, host, 0, solve_seconds, store=store)
    server.install_signal_handlers = lambda: None  # not the main thread: no signals here
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.time() + 30
    while not server.started and thread.is_alive() and time.time() < deadline:
        time.sleep(0.02)
    return Served(url_of(sock), server, thread, analyst)


def stop(served):
    served.server.should_exit = True
    served.thread.join(10)
    served.analyst.close()
    served.analyst.workers.close()
