"""Where games run: the local process pool, or a Dask cluster; the same results from either.

A game job depends only on its arguments, so an executor is just an ordered ``map``.
``executor(spec, workers)`` makes one from a scheduler spec:

- ``None``: the local process pool (``LocalPool``, from ``engine.common.pools``) with ``workers`` processes;
- ``local:N``: a Dask ``LocalCluster`` of N single-threaded worker processes on this machine;
- ``tls://HOST:PORT``: the scheduler of a Dask cluster already running, over TLS, with Dask's own
  security settings (``distributed.comm.tls.*`` in Dask's config, or the ``--tls-*`` options, which set
  them): only holders of a certificate the cluster's authority signed can reach it;
- ``tcp://HOST:PORT``: the same in the clear, with no authentication: anyone who reaches the port can
  run code on every worker. Loopback only, unless asked for (``--plain-tcp``, or ``littlego.plain-tcp``
  in Dask's config).

Before any game, every Dask worker is asked for its fingerprint of the project (a hash of
the ``engine`` and ``evolve`` sources it would run): a worker without the project, or with
another version of it, stops the command with a message naming the worker.
"""

import hashlib
import importlib.util
import logging
import os
import re
import types
from typing import TYPE_CHECKING, Callable, Dict, Iterable, Iterator, List, Literal, Optional, Type, TypeVar, Union

import engine
from engine.common.hosts import is_loopback
from engine.common.pools import process_pool
from engine.errors import InvalidInput

if TYPE_CHECKING:  # slow to import: only the Dask executor imports it, when it starts
    import multiprocessing.pool

    import distributed

J = TypeVar("J")  # a job of the function an executor maps
R = TypeVar("R")  # its result

MAX_LOCAL_WORKERS = 256
SCHEDULER_FORMS = (
    f"local:N (N from 1 to {MAX_LOCAL_WORKERS}), tls://HOST:PORT or tcp://HOST:PORT (PORT from 1 to 65535)"
)
_LOCAL = re.compile(r"^local:([0-9]{1,9})$")
_REMOTE = re.compile(r"^(tcp|tls)://([A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?|\[[0-9A-Fa-f:.]+\]):([0-9]{1,9})$")
REMOTE_PROTOCOLS = ("tcp://", "tls://")
# Dask's config keys of the client's TLS files (what ``distributed.Security()`` reads), by the option that
# sets each, and littlego's own key for plain tcp:// beyond this machine.
TLS_CONFIG = {
    "tls_ca_file": "distributed.comm.tls.ca-file",
    "tls_cert": "distributed.comm.tls.client.cert",
    "tls_key": "distributed.comm.tls.client.key",
}
PLAIN_TCP_CONFIG = "littlego.plain-tcp"


class ExecutorError(RuntimeError):
    """The cluster cannot be used, or was lost; the message says which worker or scheduler and why."""


def check_scheduler(text: object) -> str:
    """``text`` if it is a scheduler spec Dask can use; ValueError saying what the forms are."""
    if not isinstance(text, str):
        raise InvalidInput(f"{text!r} is not a scheduler: expected {SCHEDULER_FORMS}")
    local, remote = _LOCAL.match(text), _REMOTE.match(text)
    if local and 1 <= int(local.group(1)) <= MAX_LOCAL_WORKERS:
        return text
    if remote and 1 <= int(remote.group(3)) <= 65535:
        return text
    raise InvalidInput(f"{text!r} is not a scheduler: expected {SCHEDULER_FORMS}")


def is_remote(scheduler: Optional[str]) -> bool:
    """Whether ``scheduler`` names a cluster already running elsewhere (tcp:// or tls://), whose workers
    cannot see this machine's folders."""
    return scheduler is not None and scheduler.startswith(REMOTE_PROTOCOLS)


def scheduler_security(scheduler: str) -> Optional["distributed.Security"]:
    """The ``distributed.Security`` to reach ``scheduler`` with (Dask's config, which the ``--tls-*`` options
    set), or None for local:N; InvalidInput where the choice is unsafe or incomplete: tls:// without a
    certificate and key, or plain tcp:// beyond loopback that nobody asked for."""
    import dask
    import distributed

    remote = _REMOTE.match(scheduler)
    if not remote:
        return None
    protocol, host = remote.group(1), remote.group(2)
    security = distributed.Security()
    if protocol == "tls":
        missing = [key for key in TLS_CONFIG.values() if not dask.config.get(key, None)]
        if missing:
            raise InvalidInput(
                f"{scheduler}: TLS needs the cluster's authority, this client's certificate and its key "
                f"(--tls-ca-file, --tls-cert, --tls-key, or {', '.join(missing)} in Dask's config)"
            )
        return security
    if not is_loopback(host) and not dask.config.get(PLAIN_TCP_CONFIG, False):
        raise InvalidInput(
            f"{scheduler}: a plain tcp:// scheduler has no authentication, and anyone who reaches its port can run "
            "code on every worker (and this machine's games): use tls:// with certificates (--tls-ca-file, "
            "--tls-cert, --tls-key), or --plain-tcp where the network is yours alone"
        )
    return security


def project_fingerprint() -> str:
    """A hash of the project's sources as this process would run them (engine and evolve packages)."""
    digest = hashlib.sha256()
    folders = [os.path.dirname(os.path.abspath(engine.__file__))]
    spec = importlib.util.find_spec("evolve")
    if spec is not None and spec.submodule_search_locations:
        folders.extend(spec.submodule_search_locations)
    for folder in folders:
        for root, dirs, files in sorted(os.walk(folder)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(".py"):
                    path = os.path.join(root, name)
                    digest.update(os.path.relpath(path, os.path.dirname(folder)).encode())
                    with open(path, "rb") as handle:
                        digest.update(handle.read())
    return digest.hexdigest()[:16]


CHUNKS_PER_WORKER = 16
# How long a Dask scheduler's address is tried before it is called unreachable.
CONNECT_TIMEOUT = "20s"


def apply_all(function: Callable[[J], R], items: Iterable[J]) -> List[R]:
    """A Dask task: ``function`` over a chunk of items."""
    return [function(item) for item in items]


class LocalPool:
    """The local process pool: ``workers`` forked processes."""

    def __init__(self, workers: int):
        self.workers = workers
        self.pool: Optional[multiprocessing.pool.Pool] = None

    def __enter__(self) -> "LocalPool":
        self.pool = process_pool(self.workers).__enter__()
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[types.TracebackType],
    ) -> None:
        assert self.pool is not None  # entered
        return self.pool.__exit__(kind, error, traceback)

    def map(self, function: Callable[[J], R], items: Iterable[J]) -> Iterator[R]:
        """Results in the order of ``items``, as they are ready."""
        assert self.pool is not None  # entered
        return self.pool.imap(function, items, chunksize=1)

    def describe(self) -> Dict[str, object]:
        return {"executor": "local pool", "workers": self.workers, "threads": self.workers}


class DaskExecutor:
    """A Dask cluster through ``distributed.Client``: tasks are rescheduled when a worker dies."""

    def __init__(self, scheduler: str):
        self.scheduler = check_scheduler(scheduler)
        self.client: Optional[distributed.Client] = None
        self.cluster: Optional[distributed.LocalCluster] = None

    def __enter__(self) -> "DaskExecutor":
        import distributed  # only the Dask executor needs it, and it is slow to import

        # Dask's own log would print tracebacks for what ends here as one clear ExecutorError.
        for name in ["distributed"] + [n for n in logging.root.manager.loggerDict if n.startswith("distributed.")]:
            logging.getLogger(name).setLevel(logging.CRITICAL)
        try:
            if self.scheduler.startswith("local:"):
                self.cluster = distributed.LocalCluster(
                    n_workers=int(self.scheduler[6:]),
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address="127.0.0.1:0",
                    silence_logs=logging.CRITICAL,
                )
                self.client = distributed.Client(self.cluster)
            else:
                security = scheduler_security(self.scheduler)
                self.client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT, security=security)
        except (OSError, TimeoutError) as error:
            self.__exit__(None, None, None)
            raise ExecutorError(f"cannot reach the Dask scheduler at {self.scheduler}: {error}")
        self._check_workers()
        return self

    def _connected(self) -> "distributed.Client":
        """The client, once the executor is entered."""
        assert self.client is not None, "an executor is used in a with statement"
        return self.client

    def _check_workers(self) -> None:
        client = self._connected()
        workers = client.scheduler_info()["workers"]
        if not workers:
            client.wait_for_workers(1, timeout=60)
        mine = project_fingerprint()
        try:
            theirs = client.run(project_fingerprint, on_error="return")
        except Exception as error:
            raise ExecutorError(f"cannot check the workers of {self.scheduler}: {error}")
        for address, fingerprint in sorted(theirs.items()):
            if isinstance(fingerprint, BaseException):
                raise ExecutorError(
                    f"Dask worker {address} cannot run littlego ({type(fingerprint).__name__}: {fingerprint}); "
                    "install this project there "
                    "(pip install .) and restart the worker"
                )
            if fingerprint != mine:
                raise ExecutorError(
                    f"Dask worker {address} runs another version of littlego (sources {mine} here, {fingerprint} "
                    "there); "
                    "install this version there and restart the worker"
                )

    def __exit__(self, *exc: object) -> "Literal[False]":
        for thing in (self.client, self.cluster):
            if thing is not None:
                try:
                    thing.close()
                except Exception:
                    pass
        self.client = self.cluster = None
        return False

    def map(self, function: Callable[[J], R], items: Iterable[J]) -> Iterator[R]:
        """Results in the order of ``items``; ExecutorError if the scheduler is lost on the way.

        Items go in chunks, about CHUNKS_PER_WORKER a worker, so that short games do not pay
        the scheduler's cost one by one; a chunk lost with its worker is run again elsewhere.
        """
        import distributed

        client = self._connected()
        items = list(items)
        workers = max(len(client.scheduler_info()["workers"]), 1)
        size = max(1, -(-len(items) // (workers * CHUNKS_PER_WORKER)))
        chunks = [items[k : k + size] for k in range(0, len(items), size)]
        try:
            futures = client.map(apply_all, [function] * len(chunks), chunks, pure=False)
        except Exception as error:
            raise ExecutorError(f"the Dask scheduler at {self.scheduler} went away: {error}")
        try:
            for future in futures:
                yield from future.result()
        except distributed.client.FutureCancelledError as error:
            raise ExecutorError(f"the Dask scheduler at {self.scheduler} went away: {error}")
        except (OSError, TimeoutError, distributed.comm.core.CommClosedError) as error:
            raise ExecutorError(f"the Dask scheduler at {self.scheduler} went away: {error}")
        finally:
            for future in futures:
                future.release()

    def describe(self) -> Dict[str, object]:
        client = self._connected()
        info = client.scheduler_info()
        threads = sum(worker.get("nthreads", 1) for worker in info["workers"].values())
        return {
            "executor": "dask",
            "scheduler": self.scheduler,
            "workers": len(info["workers"]),
            "threads": threads,
            "dashboard": client.dashboard_link,
        }


def executor(scheduler: Optional[str] = None, workers: int = 1) -> Union[LocalPool, DaskExecutor]:
    """The executor for a scheduler spec (None: the local pool with ``workers`` processes)."""
    return LocalPool(workers) if scheduler is None else DaskExecutor(scheduler)
