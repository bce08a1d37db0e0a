"""The live class's follow route (workbench.follow): a follower's browser learns that the class
changed by a long poll, answered by one reader per process, without a script run.

Checked here against a fake store (the versions a test sets); the browser class test
(tests/browser/test_classroom.py) and the cross-process test (tests/test_hall.py) go through the
real route on real servers."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import time
from types import SimpleNamespace

from engine.db import DatabaseUnavailableError
from workbench import follow

CODE = "ABCDEF"


class Store:
    """Versions by code; ``reads`` counts the reader's calls (one per check, whatever the waiters)."""

    def __init__(self, **versions):
        self.versions = dict(versions)
        self.reads = 0
        self.down = False

    def __call__(self, codes):
        self.reads += 1
        if self.down:
            raise DatabaseUnavailableError("the database at db.example:5432 does not answer")
        return {c: self.versions.get(c) for c in codes}


def _request(code: str, seen: str | None = None):
    return SimpleNamespace(path_params={"code": code}, query_params={} if seen is None else {"seen": seen})


def _run(coro):
    """``asyncio.run`` in a thread of its own (a browser test in this process may have left an
    event loop running in the main thread)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def _ask(endpoint, code, seen=None):
    got = _run(endpoint(_request(code, seen)))
    return got.status_code, json.loads(got.body)


def test_a_changed_or_unknown_class_is_answered_at_once():
    store = Store(ABCDEF=3)
    ep = follow.endpoint(store, hold=5)
    t0 = time.perf_counter()
    assert _ask(ep, CODE, "2") == (200, {"v": 3})          # the page shows an older step
    assert _ask(ep, "abcdef") == (200, {"v": 3})            # no seen: a plain read; codes in any case
    assert _ask(ep, "ZZZZZZ", "3") == (200, {"v": None})    # no such class (the browser then reruns)
    assert _ask(ep, "not a code!", "3") == (200, {"v": None})   # never read: not a code's shape
    assert _ask(ep, CODE, "x" * 40) == (200, {"v": 3})      # a seen that is no number is none
    assert time.perf_counter() - t0 < 2


def test_a_waiter_is_woken_by_a_change_and_many_waiters_cost_one_read_per_check():
    store = Store(ABCDEF=7)
    ep = follow.endpoint(store, hold=10)

    async def scenario():
        waiters = [asyncio.ensure_future(ep(_request(CODE, "7"))) for _ in range(30)]
        await asyncio.sleep(0.5)
        assert not any(w.done() for w in waiters)            # nothing changed: all held
        reads = store.reads
        store.versions[CODE] = 8                             # the lecturer moves
        t0 = time.perf_counter()
        got = await asyncio.gather(*waiters)
        return time.perf_counter() - t0, got, reads

    waited, got, reads = _run(scenario())
    assert waited < 1.5                                      # the reader checks every CHECK_SECONDS
    assert {r.body for r in got} == {b'{"v":8}'}
    assert reads <= 1 + 0.5 / follow.CHECK_SECONDS + 2       # one read per check, not one per waiter


def test_a_quiet_class_is_answered_after_the_hold():
    store = Store(ABCDEF=1)
    ep = follow.endpoint(store, hold=0.6)
    t0 = time.perf_counter()
    assert _ask(ep, CODE, "1") == (200, {"v": 1})
    assert 0.5 < time.perf_counter() - t0 < 3


def test_a_deleted_class_wakes_its_waiters():
    store = Store(ABCDEF=4)
    ep = follow.endpoint(store, hold=10)

    async def scenario():
        w = asyncio.ensure_future(ep(_request(CODE, "4")))
        await asyncio.sleep(0.3)
        del store.versions[CODE]
        return await asyncio.wait_for(w, 5)

    assert _run(scenario()).body == b'{"v":null}'


def test_a_database_that_is_down_gets_503_and_the_waiters_keep_waiting(caplog):
    store = Store(ABCDEF=2)
    store.down = True
    ep = follow.endpoint(store, hold=10)
    status, body = _ask(ep, CODE, "1")
    assert status == 503 and "db.example" in body["error"]

    store.down = False
    ep = follow.endpoint(store, hold=10)

    async def scenario():
        w = asyncio.ensure_future(ep(_request(CODE, "2")))
        await asyncio.sleep(0.3)
        store.down = True                                   # PostgreSQL restarts mid-class
        await asyncio.sleep(0.5)
        assert not w.done()
        store.down = False
        store.versions[CODE] = 3
        return await asyncio.wait_for(w, 5)

    with caplog.at_level("WARNING", logger="tree_workbench.follow"):
        assert _run(scenario()).body == b'{"v":3}'
    said = [r for r in caplog.records if "cannot read the class store" in r.getMessage()]
    assert len(said) == 1                                   # one line, however long it was down


def test_the_route_sits_under_the_base_path():
    assert follow.route_path("") == "/_tree_workbench/class/{code}"
    assert follow.route_path("/course/") == "/course/_tree_workbench/class/{code}"


def test_the_launcher_adds_the_route_before_streamlits_own(monkeypatch):
    from streamlit.web.server.starlette import starlette_app

    from workbench.serve import follow_route

    monkeypatch.setattr(starlette_app, "create_streamlit_routes", lambda runtime: ["streamlit's"])
    follow_route()
    follow_route()   # once only
    routes = starlette_app.create_streamlit_routes(None)
    assert len(routes) == 2 and routes[1] == "streamlit's"
    assert routes[0].path == "/_tree_workbench/class/{code}" and routes[0].methods >= {"GET"}


def test_the_page_asks_under_the_servers_base_path(monkeypatch):
    from streamlit import config

    from workbench import classroom

    monkeypatch.setattr(config, "get_option", lambda name: "/course/" if name == "server.baseUrlPath" else None)
    assert classroom.follow_url("ABCDEF") == "/course/_tree_workbench/class/ABCDEF"
