"""A rerun storm cannot freeze the server: five students hold an arrow key on a slider (60 value
changes each, as fast as the keyboard repeats) while the health check is polled; it must keep
answering throughout (bounded: 5 sessions, 300 changes, 120 s), and every session must end on the
last value without an error. What keeps it answering: Streamlit coalesces the changes (a change
that arrives while the script runs stops it and starts again with the newest value), and
``workbench.serve`` freezes the warm-up's heap out of the garbage collector's reach (full
collections had held the interpreter 0.6-0.7 s).

How fast it answers is a speed, and speeds are measured by benchmarks, not asserted by tests on a
shared machine: ``python -m benchmarks.bench_app`` reports the slowest health answer with 30
students (``health_max_ms``; under a second, README "Teaching with one server"). Alone on an idle
machine this storm's slowest answer is well under a second; inside the full suite, beside the
browser tests on the same two cores, it reached 1.2-2.0 s. The test asserts what no load explains:
no answer slower than :data:`FROZEN_MS` (a frozen interpreter never answers)."""

import asyncio
import os
import time

import pytest

from benchmarks.app_client import ROOT, HealthPoll, Student, run_async, serve

pytestmark = pytest.mark.slow

SESSIONS, CHANGES = 5, 60
#: an answer slower than this is a frozen server, whatever the load (the speed: bench_app)
FROZEN_MS = 10_000


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    env = dict(os.environ, TREE_WORKBENCH_TREE='{"generate": "random", "n": 1000, "seed": 0}',
               TREE_WORKBENCH_DB=str(tmp_path_factory.mktemp("db") / "runs.sqlite"))
    with serve(ROOT, env=env, log_path=tmp_path_factory.mktemp("log") / "app.log", start_timeout=300) as (url, _):
        yield url


async def _hold_key(url: str, i: int) -> dict:
    s = Student(url, timeout=120)
    await s.connect()
    try:
        opened = await s.open("online_marginals")
        assert opened.ok, opened.errors
        values = [round(-3.0 + 0.1 * ((j + 7 * i) % 60), 1) for j in range(CHANGES)]
        # read what the server sends all the while, as a browser does: Streamlit queues at most 500
        # messages for a client, then drops the session without closing its websocket (a client
        # that read nothing during the storm lost every later rerun, one run in three under load)
        reading = asyncio.ensure_future(s.drain(quiet=5.0, limit=120))
        for v in values:            # a held key repeats about every 30 ms
            await s.fire("om_coupling", v)
            await asyncio.sleep(0.03)
        out = await reading
        rest = await s.drain(quiet=2.0, limit=120)
        for status, n in rest["runs"].items():
            out["runs"][status] = out["runs"].get(status, 0) + n
        out["errors"] += rest["errors"]
        last = await s.set_value("om_coupling", values[-1])   # the page still answers, on that value
        out["last_ok"] = last.ok
        out["last_errors"] = last.errors
        return out
    finally:
        s.close()


@pytest.mark.waits
def test_the_server_keeps_answering_during_a_rerun_storm(app):
    async def storm():
        return await asyncio.gather(*(_hold_key(app, i) for i in range(SESSIONS)))

    t0 = time.perf_counter()
    with HealthPoll(app, every=0.1) as health:
        results = run_async(storm, timeout=300)
    wall = time.perf_counter() - t0
    assert health, "the health check was never polled"
    assert max(health) < FROZEN_MS, f"slowest health answer {max(health):.0f} ms over {len(health)} polls ({wall:.0f} s)"
    for r in results:
        assert not r["errors"] and r["last_ok"] and not r["last_errors"], r
    # the storm was coalesced: far fewer complete runs than value changes
    finished = sum(r["runs"].get("FINISHED_SUCCESSFULLY", 0) for r in results)
    assert finished < SESSIONS * CHANGES, results
