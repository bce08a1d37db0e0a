"""A real PostgreSQL server for the tests: Debian's ``postgresql`` package, started in a temporary data
directory on a free port of 127.0.0.1, with a password (so the tests see that no message shows it).

``.ci/run`` installs the package; where it is not installed the tests that need it skip with one line.
As root, ``initdb`` and the server run as the ``postgres`` user (PostgreSQL refuses to run as root).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

__all__ = ["PostgresServer", "pg_bin", "free_port"]

USER, PASSWORD = "workbench", "s3cret-pw"


def pg_bin() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl`` (Debian keeps them per version), or ``None``."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if found:
        return Path(found[-1]).parent
    on_path = shutil.which("pg_ctl")
    return Path(on_path).parent if on_path and shutil.which("initdb") else None


def free_port(room: int = 0) -> int:
    """A free 127.0.0.1 port with ``room`` free ports after it (a hall's app processes take those)."""
    while True:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        if port + room < 65536 and all(_free(port + i) for i in range(1, room + 1)):
            return port


def _free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class PostgresServer:
    """``initdb`` + ``pg_ctl start`` in a fresh folder; :meth:`stop`/:meth:`start` for a restart,
    :meth:`destroy` to remove it all. :meth:`url` of a fresh database made by :meth:`new_database`."""

    def __init__(self):
        self.bin = pg_bin()
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.as_root = os.geteuid() == 0
        self.dir = Path(tempfile.mkdtemp(prefix="wb-pg-"))
        self.data = self.dir / "data"
        self.port = free_port()
        self.count = 0
        pwfile = self.dir / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.as_root:
            shutil.chown(self.dir, "postgres")
            shutil.chown(pwfile, "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, f"--pwfile={pwfile}",
                  "--auth=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        self.start()

    def _run(self, *argv: str, timeout: float = 120) -> None:
        cmd = (["runuser", "-u", "postgres", "--"] if self.as_root else []) + list(argv)
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=self.dir)
        if r.returncode != 0:
            raise RuntimeError(f"{' '.join(argv[:2])} failed: {r.stderr.strip()[-500:]}")

    def start(self) -> None:
        opts = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200"
        self._run(str(self.bin / "pg_ctl"), "start", "-w", "-t", "60", "-D", str(self.data), "-o", opts,
                  "-l", str(self.dir / "log"))

    def stop(self) -> None:
        self._run(str(self.bin / "pg_ctl"), "stop", "-w", "-t", "60", "-m", "fast", "-D", str(self.data))

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh empty database; its URL."""
        import psycopg

        self.count += 1
        name = f"wb{os.getpid()}_{self.count}_{int(time.time() * 1000) % 10**6}"
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def destroy(self) -> None:
        try:
            self.stop()
        except (RuntimeError, subprocess.SubprocessError):
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
