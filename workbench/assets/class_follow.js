// A student following a live class (a Streamlit v2 component drawn by the follower's fragment,
// workbench/classroom.py::_watch). The browser long-polls the server's follow route
// (GET data.url?seen=V, workbench/follow.py: answered as soon as the class's change counter differs
// from V, else after a few seconds, without a script run) and reruns the fragment ("tick") only
// when the counter differs from the one the page shows (data.seen), again after data.retryMs if the
// page still does not show it, and about every data.beatMs for the student's heartbeat. Where the server
// has no such route (plain `streamlit run app.py`), the fragment is rerun every data.fallbackMs, as
// a timer would. A hidden tab holds no request open (a browser keeps about six connections per
// server, and a student may have several tabs): it asks without waiting every data.fallbackMs * 2.
//
// data: {url, seen, retryMs, beatMs, fallbackMs}

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

function fire(S, value) {
  S.sent = Date.now();
  S.n += 1;
  S.trigger("tick", { ...value, n: S.n });
}

async function ask(url, seen, hold) {
  const stop = new AbortController();
  const timer = setTimeout(() => stop.abort(), 30000);
  try {
    const q = seen === null || seen === undefined ? "" : String(seen);
    const r = await fetch(hold ? `${url}?seen=${encodeURIComponent(q)}` : url,
      { cache: "no-store", credentials: "same-origin", signal: stop.signal });
    if (r.status === 503) return { down: true };   // the database is down: ask again shortly
    const body = r.ok ? await r.json() : null;
    if (!body || !("v" in body)) throw new Error("no follow route");
    return body;
  } finally {
    clearTimeout(timer);
  }
}

async function follow(S, root) {
  while (root.isConnected && S.data) {
    const d = S.data;
    let got;
    const hidden = document.visibilityState === "hidden";
    if (hidden) await sleep(2 * d.fallbackMs);
    try {
      // held by the server until the class differs from what we last heard of it (a visible tab)
      got = await ask(d.url, S.latest !== undefined ? S.latest : d.seen, !hidden);
    } catch (e) {   // no route here (or the connection failed): a timer's tick
      if (Date.now() - S.sent >= d.fallbackMs) fire(S, { fallback: true });
      await sleep(d.fallbackMs);
      continue;
    }
    if (!root.isConnected || !S.data) break;
    if (got.down) {
      await sleep(S.data.fallbackMs);
      continue;
    }
    S.latest = got.v;
    const now = Date.now();
    if (got.v !== S.data.seen) {   // the page does not show the class as it is: rerun the fragment
      if (S.firedFor !== got.v || now - S.sent >= S.data.retryMs) {
        S.firedFor = got.v;
        fire(S, { v: got.v });
      }
    } else if (now - S.sent >= 0.8 * S.data.beatMs) {
      fire(S, { beat: true });
    }
  }
  S.running = false;
}

export default function (component) {
  const { data, setTriggerValue, parentElement } = component;
  let S = parentElement.__follow;
  if (!S) S = parentElement.__follow = { sent: Date.now(), n: 0, running: false, latest: undefined, firedFor: undefined };
  S.data = data && data.url ? data : null;
  S.trigger = setTriggerValue;
  if (S.data && !S.running) {
    S.running = true;
    follow(S, parentElement);
  }
  return undefined;
}
