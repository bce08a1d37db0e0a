"""The live class's follow route: how a follower's browser learns that the class changed without a
script run.

``GET <base>/_tree_workbench/class/CODE?seen=V`` answers ``{"v": version}`` (the class's change
counter; ``null`` once the class is gone) at once when it differs from ``V``, else when it changes
or after :data:`HOLD_SECONDS` (a long poll). One asyncio task per process reads the change counter
of every class somebody waits on every :data:`CHECK_SECONDS` (one primary-key read per class, in a
worker thread, whatever the number of followers) and wakes its waiters. The browser
(``assets/class_follow.js``) then reruns the follower's fragment, which moves the page
(:func:`workbench.classroom._watch`): the rerun comes from the browser, as a click does, so it never
races ``st.switch_page`` the way a rerun pushed by the server did (docs/benchmarks.md).

An idle follower costs one answered request per :data:`HOLD_SECONDS`; 30 followers on one
process, about 6 requests a second. :func:`workbench.serve.follow_route` adds the route to the
server; nothing here is a Streamlit call.
"""

from __future__ import annotations

import asyncio
import logging
import re

from engine.classroom.store import CODE_ALPHABET, CODE_LENGTH

__all__ = ["FOLLOW_PATH", "HOLD_SECONDS", "CHECK_SECONDS", "route_path", "endpoint", "Watcher"]

#: Where the browser asks (under the server's base path).
FOLLOW_PATH = "_tree_workbench/class/{code}"
#: The longest a request waits for a change (the follower's heartbeat goes with each answer).
HOLD_SECONDS = 5.0
#: How often the waited-on classes' change counters are read.
CHECK_SECONDS = 0.2
#: At most this many requests wait at once in one process (beyond: answered at once).
MAX_WAITERS = 2000

_CODE_RE = re.compile(rf"^[{CODE_ALPHABET}]{{{CODE_LENGTH}}}$")
_LOG = logging.getLogger("tree_workbench.follow")


def route_path(base: str = "") -> str:
    """The route's path under the server's base path ``base`` (``server.baseUrlPath``)."""
    return "/" + "/".join(p for p in (base.strip("/"), FOLLOW_PATH) if p)


class Watcher:
    """The change counters of the classes somebody waits on, read every :data:`CHECK_SECONDS` by one
    task on the server's event loop; ``read(codes)`` returns ``{code: version or None}`` (run in a
    worker thread)."""

    def __init__(self, read, *, check_seconds: float = CHECK_SECONDS):
        self._read = read
        self._check = check_seconds
        self._known: dict[str, tuple[int | None, float]] = {}   # code -> (version, when read)
        self._reading: dict[str, asyncio.Future] = {}
        self._events: dict[str, asyncio.Event] = {}
        self._waiting: dict[str, int] = {}
        self._task: asyncio.Task | None = None
        self._failed = False

    async def version(self, code: str) -> int | None:
        """The class's counter now: kept current while somebody waits on it, else read at most once
        per check however many ask at once (a class's 30 followers ask together after a move)."""
        loop = asyncio.get_running_loop()
        hit = self._known.get(code)
        if hit is not None and (code in self._waiting or loop.time() - hit[1] < self._check):
            return hit[0]
        reading = self._reading.get(code)
        if reading is None:
            reading = self._reading[code] = asyncio.ensure_future(asyncio.to_thread(self._read, [code]))
            reading.add_done_callback(lambda _: self._reading.pop(code, None))
        got = (await asyncio.shield(reading)).get(code)
        if len(self._known) > 4 * MAX_WAITERS:   # codes asked for once (typos, closed classes)
            self._known = {c: self._known[c] for c in self._waiting if c in self._known}
        if code not in self._waiting:
            self._known[code] = (got, loop.time())
        return self._known.get(code, (got,))[0]

    async def wait(self, code: str, seen, hold: float) -> int | None:
        """The class's counter once it differs from ``seen``, or after ``hold`` seconds."""
        now = await self.version(code)
        if now != seen or hold <= 0 or sum(self._waiting.values()) >= MAX_WAITERS:
            return now
        event = self._events.setdefault(code, asyncio.Event())
        self._waiting[code] = self._waiting.get(code, 0) + 1
        if self._task is None or self._task.done():
            self._task = asyncio.ensure_future(self._run())
        try:
            if self._known.get(code, (now,))[0] == seen:   # not changed by a read since ours
                try:
                    await asyncio.wait_for(event.wait(), hold)
                except asyncio.TimeoutError:
                    pass
            return self._known.get(code, (now,))[0]
        finally:
            left = self._waiting[code] - 1
            if left:
                self._waiting[code] = left
            else:
                del self._waiting[code]
                self._events.pop(code, None)

    async def _run(self) -> None:
        while self._waiting:
            await asyncio.sleep(self._check)
            codes = list(self._waiting)
            if not codes:
                break
            try:
                got = await asyncio.to_thread(self._read, codes)
            except Exception as exc:   # the database is down: say so once, keep the waiters waiting
                if not self._failed:
                    _LOG.warning("the live class's follow route cannot read the class store: %s", exc)
                self._failed = True
                continue
            self._failed = False
            when = asyncio.get_running_loop().time()
            for code in codes:
                v = got.get(code)
                before = self._known.get(code)
                self._known[code] = (v, when)
                if before is not None and v != before[0]:
                    event = self._events.pop(code, None)
                    if event is not None:
                        event.set()
                    if code in self._waiting:
                        self._events[code] = asyncio.Event()


def endpoint(read, *, hold: float = HOLD_SECONDS):
    """The route's Starlette endpoint over ``read(codes) -> {code: version or None}``."""
    from starlette.responses import JSONResponse

    from engine.errors import EngineError

    watcher = Watcher(read)
    headers = {"Cache-Control": "no-store"}

    async def follow(request) -> JSONResponse:
        code = request.path_params["code"][:16].strip().upper()
        if not _CODE_RE.match(code):
            return JSONResponse({"v": None}, headers=headers)
        raw = request.query_params.get("seen", "")
        seen = int(raw) if raw.isdigit() and len(raw) < 19 else None
        try:
            v = await watcher.wait(code, seen, hold if "seen" in request.query_params else 0)
        except EngineError as exc:   # the database is down: the browser asks again
            return JSONResponse({"error": str(exc)[:200]}, status_code=503, headers=headers)
        return JSONResponse({"v": v}, headers=headers)

    follow.watcher = watcher
    return follow
