"""Evolution and matches on a Dask cluster (a LocalCluster, or a scheduler and workers started
here on the loopback address): the same results as the local pool, a killed worker costs only
retries, a lost scheduler stops the run resumably, and foreign workers are refused at the start."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

distributed = pytest.importorskip("distributed")

from engine.play import executors  # noqa: E402
from engine.play.executors import ExecutorError, executor  # noqa: E402
from engine.play.match import run_match  # noqa: E402
from engine.play.settings import GameSettings  # noqa: E402
from evolve.checkpoint import CHECKPOINT  # noqa: E402
from evolve.config import ConfigError, load_config  # noqa: E402
from evolve.fitness import FitnessGame, safe_play_job  # noqa: E402
from evolve.loop import Evolution  # noqa: E402
from evolve.runs import read_generations  # noqa: E402
from tests.conftest import HANG, ROOT, cli, start_cli, wait_for_run_file, wait_until  # noqa: E402

TINY = """
name = "tiny"
seed = 11
population = 6
generations = 2
strategy = "ga"
depth = 2
jobs = 2

[ga]
hall_of_fame = 2

[[panel]]
opponent = "greedy"
games = 4
random_opening = 2

[self_play]
opponents = 1
games = 2
"""

STABLE = ("generation", "evaluated", "games", "best_fitness", "best_weights", "win_rate", "margin", "individuals")


def stable(records):
    return [{key: getattr(record, key) for key in STABLE} for record in records]


def write(tmp_path, text, name="tiny.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def quiet():
    return open(os.devnull, "w")


@pytest.mark.fast
def test_the_executor_table_is_validated(tmp_path):
    config = load_config(write(tmp_path, TINY + '\n[executor]\nscheduler = "local:2"\n'))
    assert config.executor.scheduler == "local:2"
    assert load_config(write(tmp_path, TINY)).executor.scheduler == ""
    for bad in ('"local:0"', '"http://x:1"', '"tcp://host"', "3"):
        with pytest.raises(ConfigError, match="executor.scheduler"):
            load_config(write(tmp_path, TINY + f"\n[executor]\nscheduler = {bad}\n"))
    with pytest.raises(ConfigError, match="executor.workers"):
        load_config(write(tmp_path, TINY + "\n[executor]\nworkers = 2\n"))


def test_dask_and_the_local_pool_give_identical_generations(tmp_path):
    config = write(tmp_path, TINY)
    local = Evolution.create(config, runs_dir=str(tmp_path / "local"), jobs=2, progress=False, out=quiet()).run()
    dask = Evolution.create(
        config, runs_dir=str(tmp_path / "dask"), progress=False, out=quiet(), scheduler="local:2"
    ).run()
    assert stable(read_generations(dask)) == stable(read_generations(local))
    record = read_generations(dask)[-1]
    assert record.executor == {"executor": "dask", "scheduler": "local:2", "workers": 2, "threads": 2}
    assert record.games_per_second_per_worker > 0
    log = open(os.path.join(dask, "run.log")).read()
    assert "games run on dask at local:2, 2 workers, 2 threads, dashboard http://127.0.0.1:" in log


def test_a_run_resumed_on_another_executor_continues_exactly(tmp_path):
    config = write(tmp_path, TINY.replace("generations = 2", "generations = 3"))
    reference = Evolution.create(config, runs_dir=str(tmp_path / "ref"), jobs=1, progress=False, out=quiet()).run()
    first = Evolution.create(config, runs_dir=str(tmp_path / "mixed"), jobs=2, progress=False, out=quiet())
    run_dir = first.run(stop_after=2)  # generations 0 and 1 on the local pool
    Evolution.resume(run_dir, progress=False, out=quiet(), scheduler="local:2").run()
    assert stable(read_generations(run_dir)) == stable(read_generations(reference))


def worker_jobs(count):
    return [
        FitnessGame(
            k, (10.0, 4.0, 1.0, -3.0, 1.5, 0.5, -1.0, -0.5, -0.5, 2.0, 1.0), "greedy", 0, k, 100 + k, 200 + k // 2, 2, 3
        )
        for k in range(count)
    ]


def test_a_worker_killed_mid_generation_costs_retries_not_results():
    jobs = worker_jobs(48)
    expected = [safe_play_job(job) for job in jobs]
    results = []
    with executor("local:2") as cluster:
        pids = sorted(cluster.client.run(os.getpid).values())
        for k, result in enumerate(cluster.map(safe_play_job, jobs)):
            results.append(result)
            if k == 1:
                os.kill(pids[0], signal.SIGKILL)  # a worker dies with games in hand
        after = sorted(cluster.client.run(os.getpid).values())
    assert results == expected
    assert pids[0] not in after  # it really died (its nanny started another)


def test_matches_run_on_dask_too():
    local, _ = run_match("greedy", "random", 6, GameSettings(jobs=2, seed=4, progress=False), opening_plies=2)
    dask, _ = run_match(
        "greedy", "random", 6, GameSettings(seed=4, progress=False, scheduler="local:2"), opening_plies=2
    )
    for key in ("wins", "wins_by_colour", "a_mean_stone_margin", "end"):
        assert getattr(dask, key) == getattr(local, key)


class Cluster:
    """A Dask scheduler and workers as separate programs on the loopback address, as users run them."""

    def __init__(self, tmp_path, tls=()):
        """``tls``: the TLS options of the scheduler and its workers (--tls-ca-file and the rest), for tls://."""
        self.tmp_path = tmp_path
        self.file = str(tmp_path / "scheduler.json")
        self.processes = []
        self.tls = list(tls)
        self.scheduler = self.start(
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--dashboard-address",
                "127.0.0.1:0",
                "--scheduler-file",
                self.file,
            ]
            + (["--protocol", "tls"] + self.tls if self.tls else [])
        )
        for _ in range(300):
            if os.path.exists(self.file):
                try:
                    self.address = json.load(open(self.file))["address"]
                    break
                except ValueError:
                    pass
            time.sleep(0.1)
        else:
            raise AssertionError("the scheduler did not start")

    def start(self, args, env=None):
        process = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_" + args[0]] + args[1:],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            cwd=str(self.tmp_path),
            start_new_session=True,
        )
        self.processes.append(process)
        return process

    def worker(self, env=None):
        before = self.count_workers()
        self.start(
            ["worker", self.address, "--host", "127.0.0.1", "--nthreads", "1", "--nworkers", "1", "--no-dashboard"]
            + self.tls,
            env,
        )
        wait_until(lambda: self.count_workers() > before, "the worker joined", poll=0.1)

    def count_workers(self):
        security = None
        if self.tls:
            files = dict(zip(self.tls[::2], self.tls[1::2]))
            security = distributed.Security(
                tls_ca_file=files["--tls-ca-file"],
                tls_client_cert=files["--tls-cert"],
                tls_client_key=files["--tls-key"],
                require_encryption=True,
            )
        with distributed.Client(self.address, timeout="10s", security=security) as client:
            return len(client.scheduler_info()["workers"])

    def close(self):
        for process in self.processes:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except OSError:
                pass
            process.wait()


@pytest.fixture
def cluster(tmp_path):
    running = Cluster(tmp_path)
    yield running
    running.close()


@pytest.mark.slow
def test_a_lost_scheduler_stops_the_run_with_a_message_and_it_resumes(tmp_path, cluster):
    cluster.worker()
    config = write(tmp_path, TINY.replace("generations = 2", "generations = 30").replace("depth = 2", "depth = 3"))
    reference_config = write(
        tmp_path,
        TINY.replace("generations = 2", "generations = 30").replace("depth = 2", "depth = 3"),
        "reference.toml",
    )
    process = start_cli(
        "evolve", "run", config, "--runs-dir", tmp_path / "runs", "--scheduler", cluster.address, "--no-progress"
    )
    # Waits end as soon as what they wait for happens, with no wall-clock limit (180 s was once too
    # short beside two CPU-bound processes on 2 cores).
    run_dir = wait_for_run_file(tmp_path / "runs", CHECKPOINT, process)
    os.killpg(cluster.scheduler.pid, signal.SIGKILL)
    out, err = process.communicate(timeout=HANG)
    assert process.returncode == 3, err
    assert f"Dask scheduler at {cluster.address} went away" in err
    assert "evolve resume" in err and "Traceback" not in err
    done = len(read_generations(run_dir))
    assert 1 <= done < 31
    # Later, on the local pool: the run goes on as if nothing had happened (checked on its first generations).
    Evolution.resume(run_dir, jobs=2, progress=False, out=quiet()).run(stop_after=1)
    reference = Evolution.create(
        reference_config, runs_dir=str(tmp_path / "ref"), jobs=2, progress=False, out=quiet()
    ).run(stop_after=done + 1)
    assert stable(read_generations(run_dir)) == stable(read_generations(reference))


def copy_of_the_project(tmp_path, change):
    """A copy of the engine and evolve sources with ``change(folder)`` applied; its PYTHONPATH environment."""
    folder = tmp_path / "other"
    for package in ("engine", "evolve"):
        shutil.copytree(
            os.path.join(ROOT, package), str(folder / package), ignore=shutil.ignore_patterns("__pycache__", "data")
        )
    change(folder)
    env = dict(os.environ, PYTHONPATH=str(folder))
    return env


def test_a_worker_with_another_version_is_refused_at_the_start(tmp_path, cluster):
    def edit(folder):
        with open(str(folder / "engine" / "constants.py"), "a") as handle:
            handle.write("\n# a local change\n")

    cluster.worker(copy_of_the_project(tmp_path, edit))
    with pytest.raises(ExecutorError, match="runs another version of littlego"):
        with executor(cluster.address):
            pass
    status = cli("evolve", "bench", "--games", "2", "--jobs", "1", "--scheduler", cluster.address, timeout=HANG)
    assert status.returncode == 3 and "another version" in status.stderr and "Traceback" not in status.stderr


def test_a_worker_that_cannot_import_the_project_is_refused_at_the_start(tmp_path, cluster):
    """As a worker without the project fails: the function that probes it cannot be imported there."""

    def break_it(folder):
        (folder / "engine" / "play" / "executors.py").write_text("import a_module_this_worker_lacks\n")

    cluster.worker(copy_of_the_project(tmp_path, break_it))
    with pytest.raises(ExecutorError, match="cannot run littlego"):
        with executor(cluster.address):
            pass


def test_an_unreachable_scheduler_is_one_clear_line(monkeypatch, capsys):
    from engine.cli.littlego import main as littlego

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", "2s")  # the refusal, not the wait, is under test
    assert littlego(["match", "random", "random", "--games", "2", "--scheduler", "tcp://127.0.0.1:9"]) == 3
    err = capsys.readouterr().err
    assert "littlego match: cannot reach the Dask scheduler at tcp://127.0.0.1:9" in err and "Traceback" not in err


def certificates(folder, name):
    """(the certificate of a new authority NAME, a certificate it signed, that certificate's key) in ``folder``."""
    run = lambda *words: subprocess.run(["openssl", *words], cwd=folder, capture_output=True, check=True)  # noqa: E731
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}-ca.key", "-out", f"{name}-ca.pem",
        "-days", "2", "-subj", f"/CN={name} authority")  # fmt: skip
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj", "/CN=node")
    run("x509", "-req", "-in", f"{name}.csr", "-CA", f"{name}-ca.pem", "-CAkey", f"{name}-ca.key",
        "-CAcreateserial", "-out", f"{name}.pem", "-days", "2")  # fmt: skip
    return [str(folder / f"{name}-ca.pem"), str(folder / f"{name}.pem"), str(folder / f"{name}.key")]


def tls_options(files):
    return ["--tls-ca-file", files[0], "--tls-cert", files[1], "--tls-key", files[2]]


@pytest.fixture
def dask_config():
    """Dask's config as it was before the test: the --tls-* and --plain-tcp options set it for the process."""
    import copy

    import dask

    saved = copy.deepcopy(dask.config.config)
    yield
    dask.config.config.clear()
    dask.config.config.update(saved)


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl, to make certificates")
def test_a_tls_cluster_plays_for_its_certificates_holders_only(tmp_path, capsys, dask_config, monkeypatch):
    from engine.cli.littlego import main as littlego

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", "5s")  # a refused handshake, not the wait, is under test
    ours, rogue = certificates(tmp_path, "cluster"), certificates(tmp_path, "rogue")
    cluster = Cluster(tmp_path, tls=tls_options(ours))
    try:
        cluster.worker()
        words = ["match", "random", "random", "--games", "4", "--json", "--scheduler", cluster.address]
        assert cluster.address.startswith("tls://")
        assert littlego(words + tls_options(ours)) == 0
        assert sum(json.loads(capsys.readouterr().out)["wins"].values()) == 4
        # a certificate from another authority: the cluster refuses the handshake
        assert littlego(words + tls_options([ours[0]] + rogue[1:])) == 3
        assert f"cannot reach the Dask scheduler at {cluster.address}" in capsys.readouterr().err
    finally:
        cluster.close()


def test_tls_without_certificates_and_plain_tcp_beyond_loopback_are_refused_by_name(capsys, dask_config, monkeypatch):
    from engine.cli.littlego import main as littlego

    monkeypatch.setattr(executors, "CONNECT_TIMEOUT", "2s")
    base = ["match", "random", "random", "--games", "2", "--scheduler"]
    assert littlego(base + ["tls://127.0.0.1:9"]) == 2
    assert "TLS needs the cluster's authority, this client's certificate and its key" in capsys.readouterr().err
    assert littlego(base + ["tcp://192.0.2.1:8786"]) == 2
    err = capsys.readouterr().err
    assert "a plain tcp:// scheduler has no authentication" in err and "--plain-tcp" in err
    assert littlego(base + ["tcp://192.0.2.1:8786", "--plain-tcp"]) == 3  # asked for: tried, unreachable here
    assert "cannot reach the Dask scheduler at tcp://192.0.2.1:8786" in capsys.readouterr().err
