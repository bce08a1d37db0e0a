"""Who a browser is to this server, with no secret in any address.

- **The owner cookie** (:data:`OWNER_COOKIE`): a random token the server makes the first time a
  browser opens its websocket, kept by the browser as an ``HttpOnly``, ``SameSite=Strict`` cookie
  set by the websocket's answer (:class:`OwnerCookie`, an ASGI middleware that
  :func:`workbench.serve.owner_cookie` puts in front of the server). A reload, a second tab, a page
  served by another process of a lecture hall: the same browser, the same token. In classroom mode
  (:data:`CLASSROOM_ENV`) a student's runs are recorded under it (:func:`session_owner`), so she
  sees her own runs and nobody else's. The token is never written into a page, a link, the address
  bar or the log. Without the middleware (a test harness, a bare ``streamlit run``) a session gets a
  token of its own, kept for the session.
- **The lecturer signs in once**, through the form on the Lessons page (:func:`sign_in_form`: the
  token of :data:`LECTURER_ENV` typed, never in an address): the class store records that this
  browser's owner cookie belongs to the lecturer (hashes of both, for
  :data:`engine.classroom.store.SIGN_IN_HOURS`), so a reload, or a page of another app process, is
  the lecturer still; "Sign out" ends it. An old ``?lecturer=`` link signs nobody in: the token is
  removed from the address and one line says how to sign in.
- **Or through the university's accounts**: where the server is configured for OpenID Connect
  (Streamlit's ``[auth]`` section in ``.streamlit/secrets.toml``) and :data:`LECTURER_EMAILS_ENV`
  lists the lecturers' addresses, the form offers "Sign in with your account" (``st.login``); a
  signed-in user whose e-mail is listed is a lecturer (docs/lecture-hall.md).
"""

from __future__ import annotations

import functools
import hmac
import importlib.util
import os
import re
import secrets

import streamlit as st

from engine.classroom import ClassStore, lecturer_key
from engine.errors import ClassError
from engine.runs.store import DB_ENV, URL_ENV, default_db_target
from workbench.session import SessionState

__all__ = ["OWNER_COOKIE", "CLASSROOM_ENV", "LECTURER_ENV", "LECTURER_EMAILS_ENV", "OwnerCookie", "classroom_mode",
           "class_store", "browser_token", "is_lecturer", "lecturer_id", "session_owner", "sign_in_form",
           "oidc_lecturer", "IdentityState", "LecturerState"]

#: The cookie that names this browser to the server (a random token; never shown anywhere).
OWNER_COOKIE = "tree_workbench_owner"
#: How long a browser keeps its owner cookie (days): a term, so a student's runs are hers next week.
OWNER_DAYS = 180
#: ``1`` turns on classroom mode: each browser sees and deletes only its own runs, the lecturer all.
CLASSROOM_ENV = "TREE_WORKBENCH_CLASSROOM"
#: The lecturer's secret, typed once into the sign-in form of the Lessons page.
LECTURER_ENV = "TREE_WORKBENCH_LECTURER_TOKEN"
#: The e-mail addresses (comma-separated) that are lecturers when signed in through OpenID Connect.
LECTURER_EMAILS_ENV = "TREE_WORKBENCH_LECTURER_EMAILS"

_TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{22,64}$")


class IdentityState(SessionState, prefix=""):
    """Who this session is (its keys are read by outside scripts and tests by these names)."""

    run_owner: str | None = None   # this browser's token (its owner cookie's, else a random one)
    lecturer: bool = False         # the session is the lecturer's


class LecturerState(SessionState, prefix="lecturer"):
    """The lecturer's sign-in."""

    checked: bool = False          # this browser's sign-in was looked up (once per session)
    sign_in: None = None           # the sign-in form
    token: str = ""                # ... the token typed
    sign_in_button: bool = False   # ... its button
    sign_in_error: str | None = None  # ... a wrong token, shown once
    sign_out: bool = False         # the sign-out button
    oidc: bool = False             # the sign-in with the university's account


I, L = IdentityState(), LecturerState()


# -- the owner cookie, made by the server ----------------------------------------------------------

def _cookie_of(headers) -> str | None:
    """This request's owner token (a valid one), from its ``cookie`` headers."""
    for name, value in headers:
        if name != b"cookie":
            continue
        for part in value.decode("latin-1").split(";"):
            key, _, val = part.strip().partition("=")
            if key == OWNER_COOKIE and _TOKEN_RE.match(val):
                return val
    return None


class OwnerCookie:
    """ASGI middleware: a websocket that arrives without a valid owner cookie gets a fresh token,
    seen by the session it opens (added to the request's cookies, where ``st.context.cookies``
    reads it) and kept by the browser (``Set-Cookie`` on the websocket's answer: ``HttpOnly``,
    ``SameSite=Strict``, ``Secure`` behind HTTPS). A websocket is always opened by the app's own
    page, so a ``SameSite=Strict`` cookie always comes with it: a browser that arrives by a link from
    another site keeps its token (a cookie set on the page's own HTTP answer would be replaced)."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "websocket" or _cookie_of(scope.get("headers") or ()) is not None:
            await self.app(scope, receive, send)
            return
        token = secrets.token_urlsafe(24)
        headers = list(scope.get("headers") or ())
        headers.append((b"cookie", f"{OWNER_COOKIE}={token}".encode()))
        https = scope.get("scheme") == "wss" or any(
            n == b"x-forwarded-proto" and v.strip().lower() == b"https" for n, v in headers)
        cookie = (f"{OWNER_COOKIE}={token}; Path=/; Max-Age={OWNER_DAYS * 86400}; HttpOnly; SameSite=Strict"
                  + ("; Secure" if https else "")).encode()

        async def send_with_cookie(message):
            if message.get("type") == "websocket.accept":
                message = {**message, "headers": [*(message.get("headers") or ()), (b"set-cookie", cookie)]}
            await send(message)

        await self.app({**scope, "headers": headers}, receive, send_with_cookie)


# -- this session --------------------------------------------------------------------------------

def classroom_mode() -> bool:
    """Whether the server runs in classroom mode (``TREE_WORKBENCH_CLASSROOM=1``)."""
    return os.environ.get(CLASSROOM_ENV, "").strip().lower() in ("1", "true", "yes", "on")


@functools.lru_cache(maxsize=4)
def _store(path: str) -> ClassStore:
    """One store per database per process (the pages' sessions and the follow route share it)."""
    return ClassStore(path)


@functools.lru_cache(maxsize=8)
def _target(*env: str | None) -> str:
    return default_db_target()


def class_store() -> ClassStore:
    """The class store of this server (the run history's database, opened once per server). Every
    follower's poll calls this: the database's address is worked out once per setting."""
    return _store(_target(*map(os.environ.get, (URL_ENV, DB_ENV, "HOME", "XDG_DATA_HOME"))))


def browser_token() -> str:
    """This browser's token: its owner cookie; without one (no middleware in front of the server),
    a random token of this session."""
    tok = I.run_owner
    if tok:
        return tok
    try:
        raw = (st.context.cookies or {}).get(OWNER_COOKIE)
    except Exception:   # no browser context (a test harness)
        raw = None
    tok = raw if isinstance(raw, str) and _TOKEN_RE.match(raw) else secrets.token_urlsafe(24)
    I.run_owner = tok
    return tok


def _emails() -> set[str]:
    return {e.strip().lower() for e in os.environ.get(LECTURER_EMAILS_ENV, "").split(",") if e.strip()}


def oidc_lecturer(user, emails: set[str]) -> str | None:
    """The e-mail of ``user`` (``st.user``) when it is signed in through OpenID Connect and listed in
    ``emails``, else ``None``.

    >>> oidc_lecturer({"is_logged_in": True, "email": "Ada@Uni.example"}, {"ada@uni.example"})
    'ada@uni.example'
    >>> oidc_lecturer({"is_logged_in": False, "email": "ada@uni.example"}, {"ada@uni.example"})
    """
    try:
        if not user.get("is_logged_in"):
            return None
        email = str(user.get("email") or "").strip().lower()
    except Exception:   # no auth configured: st.user has nothing to say
        return None
    return email if email and email in emails else None


def _oidc_ready() -> bool:
    """Whether ``st.login`` can sign a lecturer in here: lecturers' e-mails listed, an ``[auth]``
    section in the secrets, and Authlib installed."""
    if not _emails() or importlib.util.find_spec("authlib") is None:
        return False
    try:
        return "auth" in st.secrets
    except Exception:   # no secrets file
        return False


def _refuse_link() -> None:
    """An old ``?lecturer=`` link: the token leaves the address at once; one line says why nothing happened."""
    if st.query_params.get("lecturer") is not None:
        del st.query_params["lecturer"]
        st.warning("Lecturer links no longer sign in (the token would show in the address bar, on the projector "
                   "and in the history): sign in with the lecturer's form on the Lessons page.",
                   icon=":material/key_off:")


def lecturer_id() -> str | None:
    """The lecturer's id for the class store (derived from the token or the signed-in e-mail, never
    the token itself), or ``None`` when this session is not the lecturer's."""
    if not is_lecturer():
        return None
    email = oidc_lecturer(_user(), _emails()) if _oidc_ready() else None
    if email:
        return lecturer_key("oidc:" + email)
    secret = os.environ.get(LECTURER_ENV, "")
    return lecturer_key(secret) if secret else None


def _user():
    try:
        return st.user
    except Exception:
        return {}


def is_lecturer() -> bool:
    """Whether this session is the lecturer's: signed in through the form (this browser's sign-in
    is looked up once per session) or through OpenID Connect."""
    _refuse_link()
    if I.lecturer:
        return True
    if not L.checked:
        L.checked = True
        secret = os.environ.get(LECTURER_ENV, "")
        try:
            I.lecturer = bool(secret) and class_store().signed_in(browser_token(), lecturer=lecturer_key(secret))
        except ClassError:
            I.lecturer = False
    if not I.lecturer and _oidc_ready() and oidc_lecturer(_user(), _emails()):
        I.lecturer = True
    return bool(I.lecturer)


def session_owner() -> str | None:
    """The owner of this session's runs: ``None`` outside classroom mode and for the lecturer (every
    run), else this browser's token (:func:`browser_token`), so a reload keeps a student's runs."""
    if not classroom_mode() or is_lecturer():
        return None
    return browser_token()


def _sign_in() -> None:
    typed, secret = str(L.token or ""), os.environ.get(LECTURER_ENV, "")
    if not secret or not hmac.compare_digest(typed.encode(), secret.encode()):
        L.sign_in_error = "That is not the lecturer's token: check it and type it again."
        return
    class_store().sign_in(browser_token(), lecturer=lecturer_key(secret))
    I.lecturer = True


def _sign_out() -> None:
    class_store().sign_out(browser_token())
    I.lecturer = False
    if _oidc_ready() and oidc_lecturer(_user(), _emails()):
        st.logout()


def sign_in_form() -> None:
    """The lecturer's sign-in (the token typed, or the university's account), or, once signed in, a
    line saying so with "Sign out". Nothing when the server has no lecturer."""
    oidc = _oidc_ready()
    if not os.environ.get(LECTURER_ENV) and not oidc:
        return
    if is_lecturer():
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.caption("Signed in as the lecturer on this browser: your classes and every student's runs are yours "
                   "to see.")
        c2.button("Sign out", key=L.key("sign_out"), icon=":material/logout:", on_click=_sign_out, width="stretch")
        return
    with st.expander("Lecturer: sign in", icon=":material/key:"):
        if os.environ.get(LECTURER_ENV):
            with st.form(L.key("sign_in"), clear_on_submit=True, enter_to_submit=True, border=False):
                st.text_input("The lecturer's token (set when the server was started)", key=L.key("token"), type="password",
                              max_chars=256, autocomplete="current-password")
                st.form_submit_button("Sign in", key=L.key("sign_in_button"), icon=":material/login:",
                                      on_click=_sign_in)
            error = L.pop("sign_in_error")
            if error:
                st.error(error, icon=":material/key_off:")
        if oidc:
            st.button("Sign in with your account", key=L.key("oidc"), icon=":material/account_circle:",
                      on_click=st.login)
