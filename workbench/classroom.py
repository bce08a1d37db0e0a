"""A class in the app: the lecturer leads a lesson, the students follow and answer its polls.

The shared state is the class store (:class:`engine.classroom.ClassStore`, in the run history's
database), read by every session of the server. A session is in at most one class, as its
lecturer or as a student:

- the lecturer (a browser signed in on the Lessons page, :func:`workbench.identity.is_lecturer`) opens a class from the Lessons page; moving through the lesson moves the class; a
  step's question is a live poll whose count and distribution the lecturer's panel shows (a small
  fragment re-read every :data:`LECTURER_SECONDS`), until "Reveal";
- a student joins with the code (the box on the Lessons page) or the join link ``?class=CODE``;
  the follower's browser (``assets/class_follow.js``) long-polls the server's follow route
  (:mod:`workbench.follow`: answered when the class's change counter moves, one reader per
  process, no script run) and only then reruns a small fragment (:func:`_watch`) that moves the
  page to the lecturer's step (``st.switch_page``) or reruns it to show a reveal. An idle
  follower costs one answered request and one fragment run (its heartbeat) every
  :data:`HEARTBEAT_SECONDS`. The page's run, not the fragment, marks a change seen, so a move
  whose page run was lost (folded away by Streamlit, see :func:`_watch`) is asked for again.
  Served without the route (plain ``streamlit run app.py``), the browser reruns the fragment
  every :data:`FOLLOW_SECONDS` instead, as a timer would.
- a reload opens a new Streamlit session: the seat cookie (:data:`SEAT_COOKIE`, the class's code)
  puts the student back in the same class, on the same seat (derived from the browser's owner
  cookie, :func:`_seat`).

The lecturer's id given to the store is derived from the lecturer token on the server; neither is
ever written into a page, a link or the log. A student's answers are stored under the seat, a
one-way hash of the browser's owner token.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import socket
import struct
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import streamlit as st

from engine.classroom import CODE_ALPHABET, CODE_LENGTH, ClassRecord, distribution
from engine.errors import ClassError
from workbench.declarations.lessons import Lesson
from workbench import address_bar
from workbench.follow import route_path
from workbench.identity import (CLASSROOM_ENV, LECTURER_ENV, browser_token, class_store, classroom_mode,
                                is_lecturer, lecturer_id)
from workbench.session import Family, SessionState

__all__ = ["ClassState", "FOLLOW_SECONDS", "LECTURER_SECONDS", "HEARTBEAT_SECONDS", "SEAT_COOKIE", "read_versions",
           "class_store", "lecturer_id", "current", "role", "lead", "resume", "join", "join_from_query",
           "rejoin_from_cookie", "leave", "join_link", "student_root", "start_lines", "local_time", "browser_zone", "PUBLIC_URL_ENV", "qr_png", "moved", "panel", "presence_line",
           "practice_step", "distribution_markdown", "is_polling", "start", "reveal",
           "poll_distribution", "student_poll", "changed"]

#: How often a follower's browser asks for the class's change counter when the server has no follow
#: route (with one, it asks once and is answered when the class changes: :mod:`workbench.follow`).
FOLLOW_SECONDS = 1.0
#: A follower's browser asks again for a move its page has not shown after this long.
RETRY_SECONDS = 3.0
#: How often the lecturer's panel reads the counts (an answer shows within this, plus a run).
LECTURER_SECONDS = 0.5
#: How often a student tells the store it is still connected.
HEARTBEAT_SECONDS = 5.0

#: The cookie that keeps a student's seat across a reload (``CODE.seat``; see assets/class_seat.js).
SEAT_COOKIE = "tree_workbench_seat"
# the class's code (an older cookie also held a seat token after a dot: ignored)
_SEAT_RE = re.compile(rf"^([{CODE_ALPHABET}]{{{CODE_LENGTH}}})(?:\.[A-Za-z0-9_-]{{16,64}})?$")


class ClassState(SessionState, prefix="class"):
    """A session's class (its element keys are what the browser tests and benchmarks/class_scenario.py press)."""

    code: str | None = None           # the class this session is in
    role: str | None = None           # ... as "lecturer" or "student"
    following: bool = False           # a student moves with the lecturer
    seat: str | None = None           # this browser's seat (derived from its owner token)
    seen: int | None = None           # the class's change counter this page shows
    beat: float = 0.0                 # when the store last heard that this student is connected
    nickname: str = ""                # a student's nickname (when the lecturer asks for them)
    message: str | None = None        # why the session left its class, shown once
    seat_tried: bool = False          # the seat cookie was tried (once per session)
    seat_clear: bool = False          # the seat cookie is to be cleared
    poll_error: str | None = None     # why an answer was not taken, shown once
    practice_sent: tuple | None = None  # the practice results last sent to the store
    seat_cookie: None = None          # the elements: the seat cookie's component
    follow: None = None               # ... the follower's component
    panel: None = None                # ... the class's block in the sidebar
    leave: bool = False               # ... its buttons: leave the class
    explore: bool = False             # ... explore on my own
    catch_up: bool = False            # ... catch up
    q: Family[object] = None          # ... a student's answer to a poll: class code, step
    send: bool = False                # ... send it
    join_form: None = None            # the Lessons page: the join form
    join_code: str = ""               # ... the code typed
    dashboard: None = None            # ... the lecturer's class
    go: bool = False                  # ... go to its step
    close: bool = False               # ... close it now
    resume: Family[bool] = False      # ... the lecturer's classes: lead one again, by code
    csv: Family[None] = None          # ... download its answers
    csv_all: None = None              # ... the class led now: its answers (workbench.class_console.downloads)
    csv_summary: None = None          # ... and its summary per question
    delete: Family[bool] = False      # ... delete it
    lead_options: None = None         # ... the options of a class to lead
    hours: float | None = None        # ... how long it stays open
    nicknames: bool = False           # ... whether students give nicknames


C = ClassState()

_ASSETS = Path(__file__).resolve().parent / "assets"
_SEAT_COMPONENT = st.components.v2.component(
    "tree_workbench.class_seat", html="", js=(_ASSETS / "class_seat.js").read_text(encoding="utf-8"))
_FOLLOW_COMPONENT = st.components.v2.component(
    "tree_workbench.class_follow", html="", js=(_ASSETS / "class_follow.js").read_text(encoding="utf-8"))

Go = Callable[[Lesson, int], None]
Find = Callable[[str], "Lesson | None"]


# -- what this process knows of its classes --------------------------------------------------------
# The follow route reads the change counter of every class somebody waits on every
# workbench.follow.CHECK_SECONDS. While that reading is fresh, a class record this process read
# serves all of its sessions as long as the counter has not moved: 30 followers of a move read the
# class once, not 30 times over one locked connection (with the interpreter shared, each locked read
# waited for the others' script runs: an eighth of the server's samples in a py-spy profile of
# bench_app --only-class, 2 December 2026).
# Without the route (AppTest, a plain ``streamlit run``) nothing is known and every read goes to the
# store. A change made by this process forgets what it knew of the class at once.

# In a hall, another process may change the class (the lecturer's): a browser told a newer counter
# than this process read (its follow request answered elsewhere, or before this process's next read)
# says so with its rerun (:func:`heard`), and below that counter nothing this process knew is used.

#: A counter read by the follow route longer ago than this is not trusted.
KNOWN_SECONDS = 1.0
_known: dict[str, tuple[int | None, float]] = {}     # code -> (change counter, when read)
_records: dict[str, ClassRecord] = {}                # code -> the record read at that counter
_opened: dict[tuple[str, int, int], bool] = {}       # (code, step, counter) -> whether its poll is open
_heard: dict[str, int] = {}                          # code -> the newest counter a browser was told
_known_lock = threading.Lock()


def read_versions(codes) -> dict[str, int | None]:
    """The change counters of classes ``codes`` (None: gone), for the follow route
    (:mod:`workbench.follow`; not a Streamlit call); what this process's sessions then know."""
    store = class_store()
    got = {code: store.version(code) for code in codes}
    now = time.monotonic()
    with _known_lock:
        if len(_known) > 4096:   # classes nobody waits on any more
            _known.clear(), _records.clear(), _opened.clear(), _heard.clear()
        _known.update((code, (v, now)) for code, v in got.items())
    return got


def _known_version(code: str) -> int | None:
    hit = _known.get(code)
    if hit is None or time.monotonic() - hit[1] >= KNOWN_SECONDS:
        return None
    return None if hit[0] is not None and hit[0] < _heard.get(code, -1) else hit[0]


def heard(code: str, version) -> None:
    """A browser of class ``code`` was told its counter is ``version`` (by a follow route, maybe of
    another process of a hall, maybe ahead of this process's own read): until this process reads
    that counter or a newer one, what it knew of the class is not used."""
    if isinstance(version, int) and not isinstance(version, bool):
        with _known_lock:
            if version > _heard.get(code, -1):
                if len(_heard) > 4096:
                    _heard.clear()
                _heard[code] = version


def changed(code: str) -> None:
    """This process changed class ``code``: what it knew of it is forgotten."""
    with _known_lock:
        _known.pop(code, None)
        _records.pop(code, None)


def _record(code: str) -> ClassRecord:
    """Class ``code`` as the store has it (shared by this process's sessions while its counter is
    known not to have moved)."""
    v = _known_version(code)
    rec = _records.get(code) if v is not None else None
    if rec is not None and rec.version == v:
        return rec
    rec = class_store().get(code)
    if v is not None and rec.version == v:
        with _known_lock:
            _records[code] = rec
    return rec


def _poll_opened(rec: ClassRecord, k: int) -> bool:
    key = (rec.code, k, rec.version)
    hit = _opened.get(key) if _known_version(rec.code) == rec.version else None
    if hit is None:
        hit = class_store().poll(rec.code, k).opened
        if _known_version(rec.code) == rec.version:
            with _known_lock:
                _opened[key] = hit
    return hit


def _seat() -> str:
    """This browser's seat in a class: derived one way from its owner token
    (:func:`workbench.identity.browser_token`), so a reload takes the same seat, the seat cookie
    carries only the class's code, and no seat reveals the token."""
    seat = C.seat
    if not seat:
        seat = hashlib.sha256(("tree-workbench-seat:" + browser_token()).encode()).hexdigest()[:32]
        C.seat = seat
    return seat


def role() -> str | None:
    """``"lecturer"``, ``"student"`` or None (not in a class)."""
    return C.role if C.code else None


def current() -> ClassRecord | None:
    """This session's class, or None (a deleted class is forgotten)."""
    code = C.code
    if not code:
        return None
    try:
        return _record(code)
    except ClassError:
        _forget("The class was deleted by the lecturer.")
        return None


def _forget(message: str | None = None) -> None:
    for name in ("code", "role", "following", "seen", "beat"):
        C.pop(name)
    if message:
        C.message = message


def is_polling(lesson: Lesson, k: int) -> bool:
    """Whether step ``k`` of ``lesson`` is a poll of this session's class."""
    rec = current()
    q = lesson.steps[k - 1].question
    return bool(rec and rec.lesson == lesson.id and q is not None and q.kind != "reveal" and _poll_opened(rec, k))


# -- the lecturer -----------------------------------------------------------------------------------

def _poll_step(lesson: Lesson, k: int) -> bool:
    q = lesson.steps[k - 1].question
    return q is not None and q.kind != "reveal"


def lead(lesson: Lesson, *, hours: float, nicknames: bool) -> ClassRecord:
    """Open a class on ``lesson`` at its first step (the lecturer); the Lessons page then shows
    its code, join link and QR code."""
    lid = lecturer_id()
    if lid is None:
        raise ClassError("only the lecturer may open a class")
    store = class_store()
    rec = store.open_class(lesson.id, lecturer=lid, hours=hours, nicknames=nicknames)
    if _poll_step(lesson, 1):
        store.open_poll(rec.code, 1, lecturer=lid)
    C.update(code=rec.code, role="lecturer")
    return rec


def resume(code: str, find: Find, go: Go) -> None:
    """Lead class ``code`` again (after a restart or from another browser of the lecturer)."""
    lid = lecturer_id()
    if lid is None:
        raise ClassError("only the lecturer may lead a class")
    rec = class_store().get(code)
    if rec.code not in {c.code for c in class_store().classes(lecturer=lid)}:
        raise ClassError(f"class {rec.code} was opened by another lecturer")
    lesson = find(rec.lesson)
    if lesson is None:
        raise ClassError(f"class {rec.code} is on the lesson {rec.lesson!r}, which is no longer among the lessons")
    C.update(code=rec.code, role="lecturer")
    go(lesson, min(rec.step, len(lesson.steps)))


def start(lesson: Lesson, k: int) -> None:
    """The lecturer starts the lesson at step ``k`` (students who joined before were waiting)."""
    rec, lid = current(), lecturer_id()
    if rec is not None and lid is not None and role() == "lecturer" and rec.lesson == lesson.id and rec.is_open():
        class_store().start(rec.code, k, lecturer=lid, poll=_poll_step(lesson, k))
        changed(rec.code)


def moved(lesson: Lesson, k: int) -> None:
    """The lesson panel moved to step ``k``: the lecturer's class moves with it (and opens the
    step's poll); a student who moves by hand explores on their own."""
    rec = current()
    if rec is None or rec.lesson != lesson.id:
        return
    if role() == "lecturer":
        lid = lecturer_id()
        if lid is not None and rec.is_open():
            class_store().move(rec.code, k, lecturer=lid, poll=_poll_step(lesson, k))
            changed(rec.code)
    elif k != rec.step:
        C.following = False


# -- students ---------------------------------------------------------------------------------------

def join(text: str, find: Find, go: Go) -> None:
    """Join the class with code ``text`` (a student) and go to the lecturer's step; a wrong or
    closed code raises one line."""
    rec = class_store().join(text)
    lesson = find(rec.lesson)
    if lesson is None:
        raise ClassError(f"class {rec.code} is on the lesson {rec.lesson!r}, which this server does not have")
    if role() == "lecturer" and C.code == rec.code:
        go(lesson, min(rec.step, len(lesson.steps)))
        return
    C.update(code=rec.code, role="student", following=True, seen=rec.version, beat=0.0)
    _beat(rec, force=True)
    go(lesson, min(rec.step, len(lesson.steps)))


def join_from_query(find: Find, go: Go) -> None:
    """A join link (``?class=CODE``): join, or one line saying why not. (An old ``?lecturer=`` link
    is refused here, before a page rewrites the address: :func:`workbench.identity.is_lecturer`.)"""
    is_lecturer()
    code = st.query_params.get("class")
    if code is None:
        rejoin_from_cookie()
        return
    del st.query_params["class"]
    try:
        join(str(code), find, go)
    except ClassError as exc:
        st.error(str(exc), icon=":material/group_off:")


def rejoin_from_cookie() -> None:
    """A student's page reloaded (a new session): the seat cookie puts it back in its class, on
    the same seat (its answers stay its own), following; the first poll of :func:`_watch` then
    moves it to the lecturer's step. Tried once per session; a cookie of a closed, deleted or
    unknown class is cleared without a word."""
    if C.seat_tried or C.code or is_lecturer():
        return
    C.seat_tried = True
    try:
        raw = (st.context.cookies or {}).get(SEAT_COOKIE)
    except Exception:   # no browser context (a test harness): nothing to rejoin
        return
    m = _SEAT_RE.match(str(raw or ""))
    if m is None:
        return
    try:
        rec = class_store().join(m.group(1))
    except ClassError:
        C.seat_clear = True
        return
    C.update(code=rec.code, role="student", following=True, seen=None, beat=0.0)
    _beat(rec, force=True)


def leave() -> None:
    rec = current()
    if rec is not None and role() == "student":
        try:
            class_store().leave(rec.code, _seat())
        except ClassError:
            pass
        C.seat_clear = True
    _forget()


def _seat_cookie(rec: ClassRecord | None) -> None:
    """Keep the seat cookie of this browser: set while a student is in an open class, cleared once
    it leaves (nothing is drawn otherwise)."""
    if rec is not None and role() == "student" and rec.is_open():
        seconds = max(60, int(rec.closes_at - time.time()))
        _SEAT_COMPONENT(key=C.key("seat_cookie"), data={"name": SEAT_COOKIE, "value": rec.code,
                                                        "seconds": seconds})
    elif C.pop("seat_clear"):
        _SEAT_COMPONENT(key=C.key("seat_cookie"), data={"name": SEAT_COOKIE, "value": "", "seconds": 0})


def _beat(rec: ClassRecord, *, force: bool = False) -> None:
    now = time.monotonic()
    if force or now - C.beat >= HEARTBEAT_SECONDS:
        C.beat = now
        try:
            class_store().heartbeat(rec.code, _seat(), following=bool(C.following), step=rec.step)
        except ClassError:
            pass


def _catch_up(find: Find, go: Go) -> None:
    rec = current()
    lesson = find(rec.lesson) if rec else None
    if rec is None or lesson is None:
        return
    C.following = True
    _beat(rec, force=True)
    go(lesson, min(rec.step, len(lesson.steps)))


def _explore() -> None:
    C.following = False
    C.beat = 0.0


def follow_url(code: str) -> str:
    """The path a follower's browser asks for class ``code``'s change counter (the server's base
    path included)."""
    from streamlit import config

    return route_path(config.get_option("server.baseUrlPath") or "").format(code=code)


@st.fragment
def _watch(opened: tuple[str, int] | None, find: Find, go: Go) -> None:
    """A follower's view of the class. Its browser (``assets/class_follow.js``) reruns this fragment
    when the class's change counter differs from the one the page shows, and every
    :data:`HEARTBEAT_SECONDS` for the heartbeat: a change moves the page to the lecturer's step
    (when following) or reruns it (a reveal, a close). The version is marked seen by the page's run
    (:func:`panel`): Streamlit folds a rerun request that arrives while ``st.switch_page``'s is
    queued into the newest one, page and query included, so a request at that moment can replace
    the move; the browser then asks again after :data:`RETRY_SECONDS`."""
    code = C.code
    if not code or role() != "student":
        return
    got = _FOLLOW_COMPONENT(key=C.key("follow"), on_tick_change=lambda: None, data={
        "url": follow_url(code), "seen": C.seen, "retryMs": int(RETRY_SECONDS * 1000),
        "beatMs": int(HEARTBEAT_SECONDS * 1000), "fallbackMs": int(FOLLOW_SECONDS * 1000)})
    tick = getattr(got, "tick", None)   # (a result without the trigger raises AttributeError)
    if isinstance(tick, dict):
        heard(code, tick.get("v"))   # the counter the follow route told this browser
    store = class_store()
    version = _known_version(code)   # what this process's follow route read, if not behind it
    if version is None:
        version = store.version(code)
    if version is None:
        _forget("The class was deleted by the lecturer.")
        st.rerun(scope="app")
    if version != C.seen:
        rec = _record(code)
        lesson = find(rec.lesson)
        if C.following and lesson is not None and opened != (rec.lesson, rec.step):
            _beat(rec, force=True)
            go(lesson, min(rec.step, len(lesson.steps)))
        st.rerun(scope="app")
    rec_step = opened[1] if opened else None
    if time.monotonic() - C.beat >= HEARTBEAT_SECONDS * 0.8:
        C.beat = time.monotonic()
        try:
            store.heartbeat(code, _seat(), following=bool(C.following), step=rec_step)
        except ClassError:
            pass


# -- what the lecturer projects ---------------------------------------------------------------------

#: The address students open (``https://workbench.uni.example``), when the server is reached through
#: a proxy or a name of its own: the join link and QR code carry it.
PUBLIC_URL_ENV = "TREE_WORKBENCH_PUBLIC_URL"
_LOOPBACK = ("127.", "localhost", "::1")


def _interface_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback: its name's addresses, else (Linux) each
    network interface's, asked of the kernel; nothing is sent anywhere."""
    found: list[str] = []
    try:
        found += [a[4][0] for a in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    except OSError:
        pass
    try:
        import fcntl  # imported here: Linux and macOS only, and only when no name answered

        for _, name in socket.if_nameindex():
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                try:
                    packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))  # SIOCGIFADDR
                except OSError:
                    continue
                found.append(socket.inet_ntoa(packed[20:24]))
    except (ImportError, OSError, AttributeError):
        pass
    return list(dict.fromkeys(a for a in found if not a.startswith(_LOOPBACK)))


def student_root(listen: str | None = None, port: int | None = None) -> tuple[str, str | None]:
    """The app's address as a student's device reaches it, and a one-line warning when none can.
    ``$TREE_WORKBENCH_PUBLIC_URL`` when set; else, when the server listens on every interface
    (``0.0.0.0``), this machine's first address other than loopback with the port; else the address
    it listens on. A server on 127.0.0.1 only gets the lecturer's own address and the warning.

    >>> student_root("192.0.2.7", 8501)
    ('http://192.0.2.7:8501', None)
    """
    public = os.environ.get(PUBLIC_URL_ENV, "").strip().rstrip("/")
    if public:
        return public, None
    listen = str(listen if listen is not None else st.get_option("server.address") or "127.0.0.1").strip()
    port = int(port if port is not None else st.get_option("server.port") or 8501)
    base = "/" + base if (base := str(st.get_option("server.baseUrlPath") or "").strip("/")) else ""
    if listen.startswith(_LOOPBACK):
        return (address_bar.app_root("lessons"),
                f"Students cannot reach this server: it listens on {listen} (this machine) only. Start it with "
                f"`make run ADDRESS=0.0.0.0`, or set {PUBLIC_URL_ENV} to the address students open.")
    if listen in ("0.0.0.0", "::", ""):
        found = _interface_addresses()
        listen = found[0] if found else socket.gethostname()
    host = f"[{listen}]" if ":" in listen else listen
    return f"http://{host}:{port}{base}", None


def start_lines(listen: str) -> list[str]:
    """What the server's start log says of the class: classroom mode and the lecturer's sign-in when
    they are on, and whether students can reach a server listening on ``listen``."""
    out = []
    if classroom_mode():
        out.append(f"classroom mode on ({CLASSROOM_ENV}): each browser sees and deletes only its own runs, "
                   "the lecturer every run")
    if os.environ.get(LECTURER_ENV):
        out.append(f"lecturer mode on ({LECTURER_ENV}): the lecturer signs in on the Lessons page to lead a class")
        if listen.strip().startswith(_LOOPBACK) and not os.environ.get(PUBLIC_URL_ENV, "").strip():
            out.append(f"students cannot reach this server: it listens on {listen} only (make run ADDRESS=0.0.0.0, "
                       f"or set {PUBLIC_URL_ENV})")
    return out


def browser_zone() -> tzinfo | None:
    """The time zone of this session's browser (``st.context.timezone``), or ``None`` when it did not say."""
    try:
        return ZoneInfo(st.context.timezone) if st.context.timezone else None
    except (ZoneInfoNotFoundError, ValueError, TypeError):
        return None


def local_time(t: float) -> str:
    """A time as the browser's clock shows it (its time zone; UTC, said so, when the browser did not
    say which)."""
    zone = browser_zone()
    when = datetime.fromtimestamp(t, zone or timezone.utc)
    return when.strftime("%H:%M") + ("" if zone is not None else " UTC")


def join_link(code: str) -> str:
    """The link a student opens to join class ``code`` (:func:`student_root`)."""
    return f"{student_root()[0]}/?class={code}"


def qr_png(text: str) -> bytes:
    """A QR code of ``text`` as PNG (dark on white, for a projector)."""
    import segno  # imported here: only the lecturer's dashboard draws one (measured: 40 ms at first import)

    buf = io.BytesIO()
    segno.make(text, error="m").save(buf, kind="png", scale=10, border=2)
    return buf.getvalue()


def distribution_markdown(rows: list[tuple[str, int, bool]], total: int, *, revealed: bool) -> str:
    """A poll's distribution as a narrow Markdown table with bars (the right rows marked once
    revealed)."""
    if not rows:
        return "_No answers yet._"
    top = max(n for _, n, _ in rows) or 1
    lines = ["| answer | count |", "|---|---|"]
    for label, n, right in rows:
        bar = "█" * round(8 * n / top)
        mark = " ✓ **engine's answer**" if (right and revealed) else ""
        cell = label.replace("|", "\\|")[:40]
        lines.append(f"| {cell}{mark} | {bar} {n} |")
    return "\n".join(lines)


def poll_distribution(lesson: Lesson, k: int, answers: list[str], *, revealed: bool):
    """The distribution of step ``k``'s answers (the right rows marked once revealed)."""
    q = lesson.steps[k - 1].question
    target = q.value if (revealed and q.kind == "number") else None
    return distribution(q.kind, answers, choices=q.choices, check=q.check if revealed else None, target=target)


# -- the panel --------------------------------------------------------------------------------------

def panel(opened: tuple[str, int] | None, find: Find, go: Go) -> None:
    """The class block of the sidebar (nothing outside a class)."""
    msg = C.pop("message")
    if msg:
        st.sidebar.info(msg, icon=":material/group_off:")
    rec = current()
    with st.sidebar:
        _seat_cookie(rec)
    if rec is None:
        return
    with st.sidebar.container(key=C.key("panel"), border=True):
        if role() == "lecturer":
            _lecturer_head(rec)
        else:
            if not C.following or opened == (rec.lesson, rec.step) or find(rec.lesson) is None:
                C.seen = rec.version   # this run shows the class as it is now
            _student_head(rec, opened, find, go)


def _student_head(rec: ClassRecord, opened, find: Find, go: Go) -> None:
    if not rec.is_open():
        st.markdown(f"**Class {rec.code}** closed at {local_time(rec.closes_at)}.")
        st.button("Leave the class", key=C.key("leave"), on_click=leave, type="tertiary", icon=":material/logout:")
        return
    following = bool(C.following)
    if following:
        st.markdown(f"**Class {rec.code}** · following the lecturer")
        st.button("Explore on my own", key=C.key("explore"), on_click=_explore, icon=":material/explore:")
    else:
        st.markdown(f"**Class {rec.code}** · exploring on your own (the lecturer is at step {rec.step})")
        if st.button("Catch up", key=C.key("catch_up"), type="primary", icon=":material/fast_forward:"):
            _catch_up(find, go)
    if rec.nicknames:
        st.text_input("Your nickname (the lecturer asked for one)", key=C.key("nickname"), max_chars=40)
    st.button("Leave the class", key=C.key("leave"), on_click=leave, type="tertiary", icon=":material/logout:")
    _watch(opened, find, go)


def _lecturer_head(rec: ClassRecord) -> None:
    state = "open" if rec.is_open() else "closed"
    st.markdown(f"**You lead class {rec.code}** ({state}): its controls and the join code are above the page.")


@st.fragment(run_every=LECTURER_SECONDS)
def presence_line(code: str) -> None:
    """How many students are connected and following (re-read every LECTURER_SECONDS)."""
    p = class_store().presence(code)
    st.markdown(f"**{p.connected}** connected · **{p.following}** following", help="Students whose page "
                "reported in the last 15 seconds; following: they move with you.")


def _send(rec: ClassRecord, k: int, response) -> None:
    text = ", ".join(map(str, response)) if isinstance(response, (list, tuple)) else str(response or "")
    try:
        class_store().answer(rec.code, k, _seat(), text, nickname=C.nickname or None)
    except ClassError as exc:
        C.poll_error = str(exc)
    else:
        C.pop("poll_error")


@st.fragment
def student_poll(rec: ClassRecord, lesson: Lesson, k: int) -> None:
    """A student's poll: sending an answer reruns only this (not the page under the lesson: 30
    students answering at once cost 30 small runs, not 30 page runs)."""
    store = class_store()
    q = lesson.steps[k - 1].question
    mine = store.my_answer(rec.code, k, _seat())
    poll = store.poll(rec.code, k)
    if poll.revealed:
        if mine is None:
            st.caption("You did not answer this poll.")
        else:
            right = q.check(mine)
            (st.success if right else st.warning)(f"Your answer: {mine[:100]} · " + ("right." if right else "not quite."),
                                                   icon=":material/check_circle:" if right else ":material/help:")
        st.markdown(f"**Answer:** {q.answer}" + (f"  \n{q.why}" if q.why else ""))
        answers = store.revealed_answers(rec.code, k)
        d = poll_distribution(lesson, k, answers, revealed=True)
        st.markdown(f"**The class:** {d.total} answered" + (f", {d.right} right" if d.right is not None else ""))
        st.markdown(distribution_markdown(d.rows(), d.total, revealed=True))
        return
    key = C.key("q", rec.code, k)
    if q.kind == "choice":
        response = st.radio("Your answer", q.choices, index=None, key=key)
    elif q.kind == "vertices":
        response = st.text_input("Your answer: vertex names, separated by commas (none: write none)", key=key,
                                 max_chars=500)
    else:
        response = st.text_input("Your answer: a number", key=key, max_chars=500)
    if st.button("Send my answer" if mine is None else "Change my answer", key=C.key("send"), type="primary",
                 width="stretch", icon=":material/send:"):
        _send(rec, k, response)
        mine = store.my_answer(rec.code, k, _seat())
    err = C.pop("poll_error")
    if err:
        st.warning(err, icon=":material/warning:")
    if mine is not None:
        st.info(f"Your answer is in: {mine[:100]}. You can change it until the lecturer reveals.",
                icon=":material/how_to_vote:")
    st.caption(f"{poll.count} answered so far. Answers are anonymous"
               + (", with your nickname." if rec.nicknames else "."))


def reveal(code: str, k: int) -> None:
    """The lecturer reveals step ``k``'s answer to the class."""
    lid = lecturer_id()
    if lid is not None:
        class_store().reveal(code, k, lecturer=lid)
        changed(code)


# -- practice steps ---------------------------------------------------------------------------------

def practice_step(lesson: Lesson, k: int, n: int, solved: int, attempts: int) -> None:
    """A practice step in a class: a student's results go to the store (when they changed); the
    lecturer sees the class's."""
    rec = current()
    if rec is None or rec.lesson != lesson.id:
        return
    if role() == "lecturer":
        _practice_results(rec.code, k, n)
        return
    mine = (rec.code, k, solved, attempts)
    if C.practice_sent != mine:
        try:
            class_store().record_practice(rec.code, k, _seat(), solved=solved, attempts=attempts, total=n)
        except ClassError:
            return   # rate-limited or closed: the next change reports again
        C.practice_sent = mine


@st.fragment(run_every=LECTURER_SECONDS)
def _practice_results(code: str, k: int, n: int) -> None:
    r = class_store().practice(code, k)
    done = r.solved
    st.markdown(f"**The class:** {r.students} reported · {done} of {r.total} exercises solved · "
                f"{r.attempts} attempts")
