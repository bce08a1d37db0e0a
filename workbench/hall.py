"""A lecture hall: several Workbench processes on consecutive ports behind nginx, with sticky sessions.

    python -m workbench.hall --workers N [--port 8501] [--address 127.0.0.1] [--tree FILE_OR_SPEC]

One Streamlit server is one Python process: about one core, however many the machine has. This
starts N app processes (:mod:`workbench.serve`, each warmed up) on 127.0.0.1 at ports ``port+1`` ...
``port+N`` and nginx on ``address:port`` in front of them, from ``workbench/assets/nginx.conf.template``
(written, filled in, to a temporary folder whose path the log gives). A browser's session goes to
the process with the fewest students and stays there (a cookie naming it, set with its first
websocket; see the template); a process that stops is started again, and its students reconnect to
another one meanwhile. A Ctrl-C or a SIGTERM stops nginx and every app process (each stops its
runs and compile processes, quietly) within 5 s, with one line.

The processes share one database: ``TREE_WORKBENCH_DB_URL=postgresql://...`` (a PostgreSQL server:
needed when processes run on several machines, or behind the department's own proxy), else the
SQLite file (``TREE_WORKBENCH_DB``): every process here is on this one machine, and SQLite's WAL
journal lets several processes of one machine share a file on its local disk (not on a network file
system). ``make run WORKERS=N`` calls this; ``make run`` (one process) calls :mod:`workbench.serve`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from workbench.serve import stop_with_make

__all__ = ["main", "render_config", "TEMPLATE"]

TEMPLATE = Path(__file__).resolve().parent / "assets" / "nginx.conf.template"
#: how often one port may fail to start again before the hall gives up on it (a crash loop)
_RESTARTS = 5
#: seconds the other processes wait for the first one's warm-up (a fresh install compiles for minutes)
_FIRST_WAIT = 900.0
#: seconds the app processes have to stop (each stops its runs and compile processes in under 4.5 s,
#: workbench.serve) before what is left of them is killed: the hall has ended 5 s after a signal
_STOP_WAIT = 4.6
_SIGNAL_NAMES = {signal.SIGINT: "Ctrl-C", signal.SIGTERM: "SIGTERM"}


def _say(msg: str) -> None:
    print(f"[hall] {msg}", flush=True)


def render_config(*, port: int, address: str, backends: list[int], folder: Path) -> str:
    """The nginx configuration: ``address:port`` in front of the app processes on ``backends``."""
    def server(p: int, backup: bool = False) -> str:
        return f"        server 127.0.0.1:{p}" + (" backup;" if backup else " max_fails=1 fail_timeout=5s;")

    # each process is also a group of its own (p0, p1, ...), the others its backups: a browser's
    # cookie names its group
    pinned = "\n".join(f"    upstream wb_p{i} {{\n" + "\n".join(server(q, q != p) for q in [p] + [q for q in backends if q != p])
                       + "\n    }" for i, p in enumerate(backends))
    fill = {"dir": str(folder), "address": address, "port": str(port),
            "servers": "\n".join(server(p) for p in backends), "pinned": pinned,
            "pinned_names": "\n".join(f"        p{i} wb_p{i};" for i in range(len(backends))),
            "answered_names": "\n".join(f'        "~(^|\\s)127\\.0\\.0\\.1:{p}$" p{i};' for i, p in enumerate(backends))}
    text = TEMPLATE.read_text()
    for key, value in fill.items():
        text = text.replace("{{" + key + "}}", value)
    return text


def _port_free(port: int, address: str = "127.0.0.1") -> bool:
    with socket.socket() as s:
        try:
            s.bind((address, port))
        except OSError:
            return False
    return True


def _healthy(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _kill_group(pgid: int) -> None:
    """Kill what is left of an app process's group (its run workers, once the server is gone)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _nginx() -> str | None:
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx")
                                          if os.access(p, os.X_OK)), None)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m workbench.hall", description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=int(os.environ.get("TREE_WORKBENCH_WORKERS") or 2),
                    help="app processes, about one core each (default $TREE_WORKBENCH_WORKERS or 2; 1: "
                         "workbench.serve alone, no proxy)")
    ap.add_argument("--port", type=int, default=int(os.environ.get("PORT", 8501)),
                    help="nginx's port; the app processes take the next WORKERS ports")
    ap.add_argument("--address", default=os.environ.get("TREE_WORKBENCH_ADDRESS", "127.0.0.1"),
                    help="interface nginx listens on (0.0.0.0: a classroom network)")
    ap.add_argument("--tree", help="the class tree every new session starts from (see workbench.serve)")
    ap.add_argument("--no-warm-up", action="store_true", help="serve at once (first pages compile kernels)")
    return ap


def main(argv=None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if not 1 <= args.workers <= 64:
        ap.error(f"--workers must be 1..64, got {args.workers}")
    if not 1 <= args.port <= 65535 - args.workers:
        ap.error(f"--port must leave room for {args.workers} app ports after it, got {args.port}")
    if args.workers == 1:   # one process needs no proxy
        from workbench import serve

        return serve.main(["--port", str(args.port), "--address", args.address]
                          + (["--tree", args.tree] if args.tree else []) + (["--no-warm-up"] if args.no_warm_up else []))
    from engine.db import check_url
    from engine.errors import EngineError
    from engine.runs.store import default_db_path

    try:
        where = check_url()
    except EngineError as exc:
        print(f"error: {exc}", file=sys.stderr, flush=True)
        return 2
    nginx = _nginx()
    if nginx is None:
        print("error: nginx is not installed (apt-get install nginx); or start the app processes with "
              "python -m workbench.serve --port P and put the department's proxy in front (docs/runs.md)",
              file=sys.stderr)
        return 2
    backends = [args.port + 1 + i for i in range(args.workers)]
    busy = [p for p in [args.port, *backends] if not _port_free(p, args.address if p == args.port else "127.0.0.1")]
    if busy:
        print(f"error: port {busy[0]} is in use; choose another --port (the hall takes {args.port}.."
              f"{backends[-1]})", file=sys.stderr)
        return 2
    _say(f"database: {where}" if where else
         f"database: the SQLite file {default_db_path()} (shared by the {args.workers} processes of this "
         "machine; set TREE_WORKBENCH_DB_URL=postgresql://... to share it across machines)")
    folder = Path(tempfile.mkdtemp(prefix="wb-hall-"))
    folder.chmod(0o755)  # nginx's workers (another user under root) write their temporary files here
    conf = folder / "nginx.conf"
    conf.write_text(render_config(port=args.port, address=args.address, backends=backends, folder=folder))
    env = dict(os.environ)
    # the run workers: the machine's cores shared between the app processes' pools
    env.setdefault("TREE_WORKBENCH_RUN_WORKERS", str(max(1, ((os.cpu_count() or 2) - 1) // args.workers)))
    extra = (["--tree", args.tree] if args.tree else []) + (["--no-warm-up"] if args.no_warm_up else [])

    def start_app(port: int) -> subprocess.Popen:
        # its own process group: its run workers go with it (a killed server leaves them orphaned);
        # a Ctrl-C reaches the hall only, which stops it: its stop is quiet (the hall's line says it)
        proc = subprocess.Popen([sys.executable, "-m", "workbench.serve", "--port", str(port),
                                 "--address", "127.0.0.1", "--quiet-stop", *extra], env=env, start_new_session=True)
        _say(f"app process {proc.pid} on port {port}")
        return proc

    stopping: list[tuple[int, float]] = []

    def stop(signum, frame):
        if not stopping:
            stopping.append((signum, time.monotonic()))

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    stop_with_make()   # a SIGTERM to make reaches the hall too
    # the first process compiles (or loads) the kernels into the shared cache; the others start when
    # it is healthy and only load them (N processes compiling the same kernels at once cost N times)
    apps = {backends[0]: start_app(backends[0])}
    restarts = dict.fromkeys(backends, 0)
    proxy = None
    code = 0
    try:
        deadline = time.monotonic() + _FIRST_WAIT
        while not stopping and apps[backends[0]].poll() is None and not _healthy(backends[0]) \
                and time.monotonic() < deadline:
            time.sleep(0.5)
        if stopping:
            return 0
        if apps[backends[0]].poll() is not None:
            print(f"error: the first app process stopped (exit {apps[backends[0]].returncode}) before it "
                  "served; see its lines above", file=sys.stderr)
            return 2
        apps.update({p: start_app(p) for p in backends[1:]})
        proxy = subprocess.Popen([nginx, "-p", str(folder), "-c", str(conf), "-e", str(folder / "error.log")])
        _say(f"http://{args.address}:{args.port}/ -> {args.workers} app processes on 127.0.0.1:{backends[0]}.."
             f"{backends[-1]} (nginx configuration: {conf})")
        while not stopping:
            time.sleep(0.5)
            if stopping:   # a Ctrl-C reaches nginx too (the hall's group): its end is no error then
                break
            if proxy.poll() is not None:
                err = (folder / "error.log").read_text(errors="replace").strip().splitlines()
                print(f"error: nginx stopped: {err[-1] if err else proxy.returncode}", file=sys.stderr)
                code = 2
                break
            for port, proc in list(apps.items()):
                if proc.poll() is None:
                    continue
                if restarts[port] >= _RESTARTS:
                    continue
                _kill_group(proc.pid)   # the run workers it left behind
                restarts[port] += 1
                _say(f"the app process on port {port} stopped (exit {proc.returncode}); its students reconnect "
                     f"to the others; starting it again ({restarts[port]}/{_RESTARTS})")
                apps[port] = start_app(port)
    finally:
        procs = [p for p in [proxy, *apps.values()] if p is not None]
        for proc in procs:   # at once: each stops in parallel with the others
            if proc.poll() is None:
                proc.terminate()
        end = (stopping[0][1] if stopping else time.monotonic()) + _STOP_WAIT
        for proc in procs:
            try:
                proc.wait(timeout=max(0.1, end - time.monotonic()))
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for proc in apps.values():
            _kill_group(proc.pid)
        shutil.rmtree(folder, ignore_errors=True)
        if stopping:
            print(f"stopped ({_SIGNAL_NAMES.get(stopping[0][0], stopping[0][0])}): the hall's {len(apps)} app "
                  f"process{'es' if len(apps) != 1 else ''} and {'nginx' if proxy is not None else 'no proxy yet'} "
                  f"ended in {time.monotonic() - stopping[0][1]:.1f} s", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
