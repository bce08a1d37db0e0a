// The tree view of the workbench: draws the marks the engine chose for one view
// (engine/trees/lod.py) on a canvas, and turns the user's gestures into requests for another view.
// Python (workbench/treeview_data.py) sends the marks in pixels of the canvas they were chosen for;
// while the next view is on its way the old marks are drawn moved and scaled to the gesture, so
// zooming and panning answer at once and the detail follows.
//
// One module, two hosts: the app loads it as a Streamlit v2 component (workbench/treeview.py), which
// calls the default export with the component's arguments; a notebook loads it as an anywidget
// (workbench/notebook.py), which calls the default export with none and gets the widget's render.
// Both drive the same view (init, show) through the same requests: setStateValue / setTriggerValue.
//
// Gestures: wheel or pinch (a trackpad's, or two fingers on a touch screen) zooms; drag pans;
// shift-drag zooms to a box; a click or a tap on a vertex picks it; a click on a collapsed mark zooms into it; the keyboard (the canvas takes
// focus) pans with the arrows, zooms with + and -, fits with 0 or Home. The search box suggests
// vertex names as you type (the server searches); Enter or a click picks one and zooms to it.

const DEBOUNCE_MS = 140;

function b64(s, Type) {
  if (!s) return new Type(0);
  const bin = atob(s);
  const buf = new ArrayBuffer(bin.length);
  const u8 = new Uint8Array(buf);
  for (let i = 0; i < bin.length; i++) u8[i] = bin.charCodeAt(i);
  return new Type(buf);
}

function fmt(n) {
  return Number(n).toLocaleString("en-US");
}

function num(v) {
  if (v === null || v === undefined || Number.isNaN(v)) return "–";
  const a = Math.abs(v);
  return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(2) : (Math.round(v * 1000) / 1000).toString();
}

function rgb(u8, i) {
  return `rgb(${u8[3 * i]},${u8[3 * i + 1]},${u8[3 * i + 2]})`;
}

function el(tag, attrs, parent) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else e.setAttribute(k, v);
  }
  if (parent) parent.appendChild(e);
  return e;
}

function decode(d) {
  return {
    d,
    vxy: b64(d.vxy, Float32Array),
    vid: b64(d.vid, Int32Array),
    vfill: b64(d.vfill, Uint8Array),
    vflag: b64(d.vflag, Uint8Array),
    ep: b64(d.ep, Float32Array),
    eo: b64(d.eo, Int32Array),
    ew: b64(d.ew, Uint8Array),
    gp: b64(d.gp, Float32Array),
    go: b64(d.go, Int32Array),
    gcount: b64(d.gcount, Int32Array),
    gfill: b64(d.gfill, Uint8Array),
    gstat: b64(d.gstat, Float32Array),
    gflag: b64(d.gflag, Int32Array),
    path: b64(d.path, Float32Array),
    hxy: b64(d.hxy, Float32Array),
  };
}

function init(root, api) {
  const S = { api, data: null, m: null, t: { ax: 1, bx: 0, ay: 1, by: 0 }, timer: null, drag: null,
              hover: null, width: 0, active: -1, lastQuery: null };
  const wrap = el("div", { class: "tv" }, root);
  S.title = el("div", { class: "tv-title" }, wrap);   // what the view shows now (a step of a schedule)
  const bar = el("div", { class: "tv-bar", role: "toolbar", "aria-label": "Tree view controls" }, wrap);
  const searchBox = el("div", { class: "tv-search" }, bar);
  const input = el("input", { type: "text", class: "tv-input", role: "combobox", "aria-autocomplete": "list",
                              "aria-expanded": "false", autocomplete: "off", spellcheck: "false" }, searchBox);
  const list = el("ul", { class: "tv-list", role: "listbox" }, searchBox);
  const btn = (label, title, fn) => {
    const b = el("button", { type: "button", class: "tv-btn", title, "aria-label": title, text: label }, bar);
    b.addEventListener("click", fn);
    return b;
  };
  S.fit = btn("Fit", "Fit the whole tree (0)", () => request(S, { fit: true }));
  btn("+", "Zoom in (+)", () => zoomBy(S, 2, S.width / 2, S.h / 2));
  btn("−", "Zoom out (−)", () => zoomBy(S, 0.5, S.width / 2, S.h / 2));
  S.layoutBtn = btn("Radial", "Switch between the tidy and the radial layout", () => {
    const next = S.data.layout === "radial" ? "tidy" : "radial";
    S.api.setStateValue("layout", next);
  });
  S.legend = el("span", { class: "tv-legend" }, bar);
  S.status = el("span", { class: "tv-status", "aria-live": "polite" }, bar);
  const stage = el("div", { class: "tv-stage" }, wrap);
  const canvas = el("canvas", { class: "tv-canvas", tabindex: "0", role: "img" }, stage);
  S.tip = el("div", { class: "tv-tip", role: "tooltip" }, stage);
  S.busy = el("div", { class: "tv-busy", text: "drawing…" }, stage);
  S.wrap = wrap; S.bar = bar; S.canvas = canvas; S.input = input; S.list = list; S.stage = stage;

  // ---------------------------------------------------------------- gestures
  canvas.addEventListener("wheel", (e) => {
    e.preventDefault();
    const f = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0018));
    zoomBy(S, f, e.offsetX, e.offsetY);
  }, { passive: false });
  // two fingers on a touch screen pinch: the view zooms by the change of their distance about
  // their first midpoint and follows the midpoint as it moves (S.fingers: pointer id -> position)
  S.fingers = new Map();
  const pinchState = () => {
    const [a, b] = [...S.fingers.values()];
    return { d: Math.hypot(a.x - b.x, a.y - b.y) || 1, x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  };
  canvas.addEventListener("pointerdown", (e) => {
    canvas.setPointerCapture(e.pointerId);
    if (e.pointerType === "touch") S.fingers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
    if (S.fingers.size === 2) {   // the second finger: a pinch, not a drag or a tap
      S.drag = null;
      S.pinch = { ...pinchState(), t0: { ...S.t } };
      return;
    }
    if (S.pinch) return;
    S.drag = { x: e.offsetX, y: e.offsetY, t0: { ...S.t }, box: e.shiftKey, moved: false };
  });
  const lift = (e) => {
    if (!S.fingers.delete(e.pointerId) || !S.pinch) return false;
    if (S.fingers.size < 2) { S.pinch = null; schedule(S); }
    return true;
  };
  canvas.addEventListener("pointercancel", (e) => { lift(e); S.drag = null; });
  canvas.addEventListener("pointermove", (e) => {
    if (S.fingers.has(e.pointerId)) S.fingers.set(e.pointerId, { x: e.offsetX, y: e.offsetY });
    if (S.pinch && S.fingers.size === 2) {
      const p = S.pinch, now = pinchState(), t0 = p.t0, f = now.d / p.d;
      S.t = { ax: t0.ax * f, bx: now.x - (p.x - t0.bx) * f, ay: t0.ay * f, by: now.y - (p.y - t0.by) * f };
      if (S.data && S.data.layout === "radial") S.t.ay = S.t.ax;
      draw(S);
      return;
    }
    const d = S.drag;
    if (!d) { hover(S, e.offsetX, e.offsetY); return; }
    const dx = e.offsetX - d.x, dy = e.offsetY - d.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
    if (!d.moved) return;
    if (d.box) { d.bx = e.offsetX; d.by = e.offsetY; draw(S); return; }
    S.t = { ax: d.t0.ax, bx: d.t0.bx + dx, ay: d.t0.ay, by: d.t0.by + dy };
    draw(S);
  });
  canvas.addEventListener("pointerup", (e) => {
    if (lift(e) || S.pinch) { S.drag = null; return; }
    const d = S.drag;
    S.drag = null;
    if (!d) return;
    if (!d.moved) { click(S, e.offsetX, e.offsetY); return; }
    if (d.box && d.bx !== undefined) {
      const x0 = Math.min(d.x, d.bx), x1 = Math.max(d.x, d.bx), y0 = Math.min(d.y, d.by), y1 = Math.max(d.y, d.by);
      if (x1 - x0 > 4 && y1 - y0 > 4) zoomToBox(S, x0, y0, x1, y1);
      else draw(S);
      return;
    }
    schedule(S);
  });
  canvas.addEventListener("pointerleave", () => { S.tip.style.display = "none"; });
  canvas.addEventListener("keydown", (e) => {
    const step = 0.2;
    const k = e.key;
    if (k === "ArrowLeft" || k === "ArrowRight" || k === "ArrowUp" || k === "ArrowDown") {
      const dx = k === "ArrowLeft" ? step * S.width : k === "ArrowRight" ? -step * S.width : 0;
      const dy = k === "ArrowUp" ? step * S.h : k === "ArrowDown" ? -step * S.h : 0;
      S.t = { ...S.t, bx: S.t.bx + dx, by: S.t.by + dy };
      draw(S); schedule(S);
    } else if (k === "+" || k === "=") zoomBy(S, 2, S.width / 2, S.h / 2);
    else if (k === "-" || k === "_") zoomBy(S, 0.5, S.width / 2, S.h / 2);
    else if (k === "0" || k === "Home") request(S, { fit: true });
    else return;
    e.preventDefault();
  });

  // ---------------------------------------------------------------- the search box
  input.addEventListener("input", () => {
    S.chosen = null;
    S.active = -1;
    clearTimeout(S.qtimer);
    S.qtimer = setTimeout(() => {
      S.lastQuery = input.value;
      S.api.setStateValue("query", input.value);
    }, 120);
  });
  input.addEventListener("keydown", (e) => {
    // the suggestions are for what the box says only once the server has answered its text: until
    // then Enter looks the typed name up itself (a list for an older text would pick its first name)
    const items = S.data && S.data.suggest && S.data.query === input.value ? S.data.suggest : [];
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      if (!items.length) return;
      S.active = (S.active + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length;
      renderList(S);
      e.preventDefault();
    } else if (e.key === "Enter") {
      // the typed text's own request (due 120 ms after the last key) is not sent: a rerun for it,
      // asked by a page that has not yet heard of the choice, would carry the page's old widget
      // values and move the selection back (the name box to vertex 1)
      clearTimeout(S.qtimer);
      const i = S.active >= 0 ? S.active : 0;
      if (items.length) choose(S, items[i]);
      else if (input.value) S.api.setTriggerValue("choose", { name: input.value });
      e.preventDefault();
    } else if (e.key === "Escape") {
      S.list.style.display = "none";
      input.setAttribute("aria-expanded", "false");
    }
  });
  input.addEventListener("blur", () => setTimeout(() => {
    S.list.style.display = "none";
    input.setAttribute("aria-expanded", "false");
  }, 200));

  const ro = new ResizeObserver(() => {
    const w = Math.floor(stage.clientWidth);
    if (w > 0 && Math.abs(w - S.width) >= 2) {
      const region = S.data ? viewport(S) : null;   // what the old width showed
      S.width = w;
      size(S);
      if (S.data && Math.abs(w - S.data.w) >= 2) request(S, { resize: true, region });
      else draw(S);
    }
  });
  ro.observe(stage);
  S.ro = ro;
  return S;
}

function choose(S, item) {
  S.chosen = item.name;
  S.list.style.display = "none";
  S.input.setAttribute("aria-expanded", "false");
  S.input.value = item.name;
  S.api.setTriggerValue("choose", { id: item.id, w: S.width, h: S.h });
}

function renderList(S) {
  const items = S.data && S.data.suggest ? S.data.suggest : [];
  const list = S.list;
  list.textContent = "";
  const base = S.data.key || "tv";
  items.forEach((it, i) => {
    const li = el("li", { role: "option", id: `${base}-opt-${i}`, "aria-selected": String(i === S.active),
                          class: i === S.active ? "tv-opt tv-active" : "tv-opt", text: it.name }, list);
    li.addEventListener("mousedown", (e) => { e.preventDefault(); choose(S, it); });
  });
  const open = items.length > 0 && S.input.matches(":focus");
  list.style.display = open ? "block" : "none";
  S.input.setAttribute("aria-expanded", String(open));
  if (open && S.active >= 0) S.input.setAttribute("aria-activedescendant", `${base}-opt-${S.active}`);
  else S.input.removeAttribute("aria-activedescendant");
}

// ---------------------------------------------------------------- views
function zoomBy(S, f, cx, cy) {
  const t = S.t;
  const lock = S.data && S.data.layout === "radial";
  S.t = { ax: t.ax * f, bx: cx - (cx - t.bx) * f, ay: t.ay * f, by: cy - (cy - t.by) * f };
  if (lock) S.t.ay = S.t.ax;
  draw(S);
  schedule(S);
}

function zoomToBox(S, x0, y0, x1, y1) {
  // the box (screen px) fills the canvas: screen' = (screen - x0) * W / (x1 - x0)
  let fx = S.width / (x1 - x0), fy = S.h / (y1 - y0);
  if (S.data.layout === "radial") { fx = fy = Math.min(fx, fy); }
  const cx = 0.5 * (x0 + x1), cy = 0.5 * (y0 + y1);
  const t = S.t;
  S.t = { ax: t.ax * fx, bx: S.width / 2 - (cx - t.bx) * fx, ay: t.ay * fy, by: S.h / 2 - (cy - t.by) * fy };
  draw(S);
  schedule(S);
}

// The viewport (layout units) now on screen: the marks' viewport moved by the pending transform.
function viewport(S) {
  const d = S.data;
  const [x0, x1, y0, y1] = d.vp;
  const sx = d.w / (x1 - x0), sy = d.h / (y1 - y0);
  const t = S.t;
  const width = S.width;
  const px0 = (0 - t.bx) / t.ax, px1 = (width - t.bx) / t.ax;
  const py0 = (0 - t.by) / t.ay, py1 = (S.h - t.by) / t.ay;
  return [x0 + px0 / sx, x0 + px1 / sx, y1 - py1 / sy, y1 - py0 / sy];
}

// The transform that draws marks chosen for viewport ``d.vp`` on a ``d.w`` x ``d.h`` canvas so that
// they show viewport ``V`` on a ``W`` x ``H`` canvas.
function transformFor(d, V, W, H) {
  const [x0, x1, y0, y1] = d.vp;
  const sx = d.w / (x1 - x0), sy = d.h / (y1 - y0);
  let kx = W / (V[1] - V[0]), ky = H / (V[3] - V[2]);
  if (d.layout === "radial") {   // one scale: the viewport seen is V, widened to the canvas
    kx = ky = Math.min(kx, ky);
  }
  const cx = 0.5 * (V[0] + V[1]), cy = 0.5 * (V[2] + V[3]);
  // screen = (x - cx) * kx + W/2, and px = (x - x0) * sx: screen = px * kx/sx + (x0 - cx) * kx + W/2
  return { ax: kx / sx, bx: (x0 - cx) * kx + W / 2, ay: ky / sy, by: (cy - y1) * ky + H / 2 };
}

function schedule(S) {
  clearTimeout(S.timer);
  S.timer = setTimeout(() => request(S, {}), DEBOUNCE_MS);
}

function request(S, extra) {
  clearTimeout(S.timer);
  if (!S.data) return;
  // a canvas of another width: the same region drawn for the new width (while the user has not
  // moved the server's view: the whole tree, or the region the server was asked for); else the
  // region now on screen
  const unmoved = extra.resize && S.t === S.tFit;
  const fit = extra.fit || (unmoved && S.data.overview);
  const vp = fit ? null : (unmoved && S.data.want ? S.data.want : (extra.region || viewport(S)));
  S.seq = (S.seq || 0) + 1;
  S.busy.style.display = "block";
  S.api.setStateValue("view", { vp, w: S.width, h: S.h, seq: S.seq, fit: !!fit });
}

// ---------------------------------------------------------------- picking
function hit(S, sx, sy) {
  const m = S.m;
  if (!m) return null;
  const t = S.t;
  const x = (sx - t.bx) / t.ax, y = (sy - t.by) / t.ay;   // in the marks' px
  const r = 0.5 * S.data.marker + 3;
  let best = -1, bd = r * r;
  const n = m.vid.length;
  for (let i = 0; i < n; i++) {
    const dx = (m.vxy[2 * i] - x) * t.ax, dy = (m.vxy[2 * i + 1] - y) * t.ay;
    const d = dx * dx + dy * dy;
    if (d <= bd) { bd = d; best = i; }
  }
  if (best >= 0) return { kind: "vertex", i: best };
  const ng = m.gcount.length;
  for (let g = ng - 1; g >= 0; g--) {
    if (inPolygon(m.gp, m.go[g], m.go[g + 1], x, y)) return { kind: "mark", i: g };
  }
  return null;
}

function inPolygon(p, a, b, x, y) {
  let inside = false;
  for (let i = a, j = b - 1; i < b; j = i++) {
    const xi = p[2 * i], yi = p[2 * i + 1], xj = p[2 * j], yj = p[2 * j + 1];
    if ((yi > y) !== (yj > y) && x < ((xj - xi) * (y - yi)) / (yj - yi + 1e-12) + xi) inside = !inside;
  }
  return inside;
}

function click(S, sx, sy) {
  const h = hit(S, sx, sy);
  if (!h) return;
  if (h.kind === "vertex") {
    S.api.setTriggerValue("pick", { id: S.m.vid[h.i] });
    return;
  }
  // a collapsed mark: the server opens it (a view that draws its first level vertex by vertex);
  // until that view arrives, the marks shown are zoomed twice about the click
  S.seq = (S.seq || 0) + 1;
  S.api.setTriggerValue("open", { g: h.i, rev: S.data.rev, seq: S.seq });
  const t = S.t;
  S.t = { ax: t.ax * 2, bx: sx - (sx - t.bx) * 2, ay: t.ay * 2, by: sy - (sy - t.by) * 2 };
  S.busy.style.display = "block";
  draw(S);
}

function hover(S, sx, sy) {
  const h = hit(S, sx, sy);
  const tip = S.tip;
  S.canvas.style.cursor = h ? "pointer" : "grab";
  if (!h) { tip.style.display = "none"; return; }
  const d = S.data, m = S.m;
  let text;
  if (h.kind === "vertex") {
    const i = h.i;
    text = d.vname[i] + (d.vtext ? "\n" + d.vtext[i] : "");
  } else {
    const g = h.i;
    text = `${d.gname[g]}: ${fmt(m.gcount[g])} vertices`;
    if (d.value) {
      const lo = m.gstat[3 * g], mean = m.gstat[3 * g + 1], hi = m.gstat[3 * g + 2];
      text += `\n${d.value}: ${num(lo)} to ${num(hi)}, mean ${num(mean)}`;
    }
    if (m.gflag[g] > 0) text += `\n${fmt(m.gflag[g])} with ${d.flagName || "evidence"}`;
    text += "\nclick to zoom in";
  }
  tip.textContent = text;
  tip.style.display = "block";
  const left = Math.min(sx + 14, S.width - tip.offsetWidth - 4);
  tip.style.left = `${Math.max(0, left)}px`;
  tip.style.top = `${Math.min(sy + 14, S.h - tip.offsetHeight - 4)}px`;
}

// ---------------------------------------------------------------- drawing
function size(S) {
  const dpr = window.devicePixelRatio || 1;
  const c = S.canvas;
  c.width = Math.round(S.width * dpr);
  c.height = Math.round(S.h * dpr);
  c.style.width = `${S.width}px`;
  c.style.height = `${S.h}px`;
}

function draw(S) {
  const d = S.data, m = S.m;
  if (!d || !m || !S.width) return;
  const c = S.canvas;
  const ctx = c.getContext("2d");
  const dpr = window.devicePixelRatio || 1;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  const th = d.theme;
  ctx.fillStyle = th.background;
  ctx.fillRect(0, 0, S.width, S.h);
  const t = S.t;
  const X = (x) => x * t.ax + t.bx, Y = (y) => y * t.ay + t.by;
  const font = d.font || 13;
  ctx.font = `${font}px ${th.family}`;
  ctx.textBaseline = "middle";
  ctx.textAlign = "center";

  // collapsed marks: shaded from their smallest value (left) to their largest (right), mean between
  const ng = m.gcount.length;
  for (let g = 0; g < ng; g++) {
    const a = m.go[g], b = m.go[g + 1];
    if (b - a < 2) continue;
    ctx.beginPath();
    let x0 = Infinity, x1 = -Infinity, y0 = Infinity, y1 = -Infinity;
    for (let i = a; i < b; i++) {
      const x = X(m.gp[2 * i]), y = Y(m.gp[2 * i + 1]);
      if (i === a) ctx.moveTo(x, y); else ctx.lineTo(x, y);
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y);
    }
    ctx.closePath();
    if (x1 < -50 || x0 > S.width + 50 || y1 < -50 || y0 > S.h + 50) continue;
    if (m.gfill.length >= 9 * (g + 1) && x1 - x0 > 6) {
      const grad = ctx.createLinearGradient(x0, 0, x1, 0);
      grad.addColorStop(0, rgb(m.gfill, 3 * g));
      grad.addColorStop(0.5, rgb(m.gfill, 3 * g + 1));
      grad.addColorStop(1, rgb(m.gfill, 3 * g + 2));
      ctx.fillStyle = grad;
    } else if (m.gfill.length >= 9 * (g + 1)) {
      ctx.fillStyle = rgb(m.gfill, 3 * g + 1);
    } else {
      ctx.fillStyle = th.collapsed;
    }
    ctx.globalAlpha = 0.55;
    ctx.fill();
    ctx.globalAlpha = 1;
    ctx.strokeStyle = th.edge;
    ctx.lineWidth = 1;
    ctx.stroke();
    if (m.gflag[g] > 0) {     // a vertex inside carries evidence: an orange dot at the mark's top
      ctx.beginPath();
      ctx.arc(X(m.gp[2 * a]), Y(m.gp[2 * a + 1]) + 4, 3.5, 0, 2 * Math.PI);
      ctx.fillStyle = d.flagColour;
      ctx.fill();
    }
  }

  // edges
  ctx.lineWidth = d.edgeWidth || 1;
  ctx.strokeStyle = th.edge;
  ctx.beginPath();
  const ne = m.eo.length - 1;
  for (let j = 0; j < ne; j++) {
    const a = m.eo[j], b = m.eo[j + 1];
    for (let i = a; i < b; i++) {
      const x = X(m.ep[2 * i]), y = Y(m.ep[2 * i + 1]);
      if (i === a) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    }
  }
  ctx.stroke();
  if (m.ew.length) {     // highlighted edges (a path of D that an operation touched, a component)
    ctx.lineWidth = 3;
    ctx.strokeStyle = d.highlight;
    ctx.beginPath();
    for (let j = 0; j < ne; j++) {
      if (!m.ew[j]) continue;
      for (let i = m.eo[j]; i < m.eo[j + 1]; i++) {
        const x = X(m.ep[2 * i]), y = Y(m.ep[2 * i + 1]);
        if (i === m.eo[j]) ctx.moveTo(x, y); else ctx.lineTo(x, y);
      }
    }
    ctx.stroke();
  }

  // the path from the selected vertex to the root
  if (m.path.length >= 4) {
    ctx.lineWidth = 2;
    ctx.globalAlpha = 0.85;
    ctx.strokeStyle = d.select;
    ctx.beginPath();
    for (let i = 0; i < m.path.length / 2; i++) {
      const x = X(m.path[2 * i]), y = Y(m.path[2 * i + 1]);
      if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
    }
    ctx.stroke();
    ctx.globalAlpha = 1;
  }

  // collapsed marks' counts, where they fit in their mark and clear of each other (the largest
  // subtrees first: in a radial overview many thin wedges meet near the centre)
  const boxes = [];
  const overlaps = (bx) => boxes.some((o) => bx[0] < o[2] && o[0] < bx[2] && bx[1] < o[3] && o[1] < bx[3]);
  if (d.glabel && !m.gorder) m.gorder = Array.from(m.gcount.keys()).sort((a, b) => m.gcount[b] - m.gcount[a]);
  for (const g of d.glabel ? m.gorder : []) {
    if (!d.glabel[g]) continue;
    const [lx, ly, lw] = d.glabel[g];
    const x = X(lx), y = Y(ly);
    if (x < 0 || x > S.width || y < 0 || y > S.h) continue;
    const tw = ctx.measureText(d.gtext[g]).width;
    if (lw * Math.min(t.ax, 4) < tw + 4) continue;
    const bx = [x - tw / 2 - 2, y - font / 2 - 1, x + tw / 2 + 2, y + font / 2 + 1];
    if (overlaps(bx)) continue;
    boxes.push(bx);
    ctx.fillStyle = th.label_bg;
    ctx.fillRect(bx[0], bx[1], bx[2] - bx[0], bx[3] - bx[1]);
    ctx.fillStyle = th.text;
    ctx.fillText(d.gtext[g], x, y);
  }

  // vertices
  const r = 0.5 * d.marker - 0.5;
  const n = m.vid.length;
  for (let i = 0; i < n; i++) {
    const x = X(m.vxy[2 * i]), y = Y(m.vxy[2 * i + 1]);
    if (x < -r || x > S.width + r || y < -r || y > S.h + r) continue;
    ctx.beginPath();
    ctx.arc(x, y, r, 0, 2 * Math.PI);
    ctx.fillStyle = m.vfill.length ? rgb(m.vfill, i) : th.vertex;
    ctx.fill();
    ctx.lineWidth = 1;
    ctx.strokeStyle = th.outline;
    ctx.stroke();
    const f = m.vflag.length ? m.vflag[i] : 0;
    if (f & 1) {   // evidence
      ctx.beginPath();
      ctx.arc(x, y, r + 3, 0, 2 * Math.PI);
      ctx.lineWidth = 2.5;
      ctx.strokeStyle = d.flagColour;
      ctx.stroke();
    }
  }
  // highlighted points (rings), then the selected vertex
  for (let i = 0; i < m.hxy.length / 2; i++) {
    ctx.beginPath();
    ctx.arc(X(m.hxy[2 * i]), Y(m.hxy[2 * i + 1]), r + 2, 0, 2 * Math.PI);
    ctx.lineWidth = 3;
    ctx.strokeStyle = d.highlight;
    ctx.stroke();
  }
  if (d.sel) {
    const x = X(d.sel[0]), y = Y(d.sel[1]);
    ctx.beginPath();
    ctx.arc(x, y, r + 6, 0, 2 * Math.PI);
    ctx.lineWidth = 3.5;
    ctx.strokeStyle = d.select;
    ctx.stroke();
  }

  // messages along their edges (arrows and labels placed by the server, workbench/figures/arrows.py):
  // the arrow moves with the view, its label keeps its offset in screen px from the arrow's tail
  for (const [tx0, ty0, hx0, hy0, lx0, ly0, text, strong] of d.arrows || []) {
    const tx = X(tx0), ty = Y(ty0), hx = X(hx0), hy = Y(hy0);
    const lx = tx + (lx0 - tx0), ly = ty + (ly0 - ty0);
    const colour = strong ? d.select : th.text;
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = strong ? 3.2 : 1.8;
    ctx.beginPath(); ctx.moveTo(tx, ty); ctx.lineTo(hx, hy); ctx.stroke();
    const a = Math.atan2(hy - ty, hx - tx), L = strong ? 12 : 10;
    ctx.beginPath();
    ctx.moveTo(hx, hy);
    ctx.lineTo(hx - L * Math.cos(a - 0.4), hy - L * Math.sin(a - 0.4));
    ctx.lineTo(hx - L * Math.cos(a + 0.4), hy - L * Math.sin(a + 0.4));
    ctx.closePath(); ctx.fill();
    ctx.strokeStyle = th.muted || th.edge;
    ctx.lineWidth = 1;
    ctx.beginPath(); ctx.moveTo(tx, ty); ctx.lineTo(lx, ly); ctx.stroke();
    ctx.font = `${strong ? "bold " : ""}${font}px ${th.family}`;
    const w = ctx.measureText(text).width + 6;
    const bx = [lx - w / 2, ly - font * 0.7, lx + w / 2, ly + font * 0.7];
    ctx.fillStyle = th.label_bg;
    ctx.fillRect(bx[0], bx[1], bx[2] - bx[0], bx[3] - bx[1]);
    ctx.strokeStyle = strong ? d.select : th.collapsed;
    ctx.strokeRect(bx[0], bx[1], bx[2] - bx[0], bx[3] - bx[1]);
    ctx.fillStyle = colour;
    ctx.fillText(text, lx, ly);
    ctx.font = `${font}px ${th.family}`;
    boxes.push(bx);
  }

  // names beside the vertices, where they do not run into each other (nor into a message's label
  // or a collapsed mark's count)
  if (d.vname && d.labels !== false) {
    // the selected and ringed vertices first, then the first 1,500 drawn
    const first = d.labelFirst || [];
    const seen = new Set(first);
    const order = first.concat([...Array(Math.min(d.vname.length, 1500)).keys()].filter(i => !seen.has(i)));
    let shown = 0;
    ctx.textAlign = "left";
    for (const i of order) {
      if (shown >= 400) break;
      const x = X(m.vxy[2 * i]), y = Y(m.vxy[2 * i + 1]);
      if (x < 0 || x > S.width || y < 0 || y > S.h) continue;
      const s = d.vname[i];
      const w = ctx.measureText(s).width;
      for (const [ox, oy] of [[r + 3, 0], [-r - 3 - w, 0], [-w / 2, r + font / 2 + 2], [-w / 2, -r - font / 2 - 2]]) {
        const bx = [x + ox - 1, y + oy - font / 2, x + ox + w + 1, y + oy + font / 2];
        if (bx[0] < 0 || bx[2] > S.width || bx[1] < 0 || bx[3] > S.h) continue;
        if (overlaps(bx)) continue;
        boxes.push(bx);
        ctx.fillStyle = th.label_bg;
        ctx.fillRect(bx[0], bx[1], bx[2] - bx[0], bx[3] - bx[1]);
        ctx.fillStyle = th.text;
        ctx.fillText(s, x + ox, y + oy);
        shown++;
        break;
      }
    }
    ctx.textAlign = "center";
  }

  // the box of a shift-drag
  const dr = S.drag;
  if (dr && dr.box && dr.bx !== undefined) {
    ctx.strokeStyle = d.select;
    ctx.setLineDash([4, 3]);
    ctx.lineWidth = 1.5;
    ctx.strokeRect(Math.min(dr.x, dr.bx), Math.min(dr.y, dr.by), Math.abs(dr.bx - dr.x), Math.abs(dr.by - dr.y));
    ctx.setLineDash([]);
  }
}

// The colour scale, in the toolbar: the title, the low end, a gradient, the high end.
function legend(S, L) {
  const box = S.legend;
  box.textContent = "";
  if (!L) { box.style.display = "none"; return; }
  box.style.display = "inline-flex";
  el("span", { class: "tv-legend-title", text: L.title || "" }, box);
  el("span", { text: num(L.lo) }, box);
  const bar = el("span", { class: "tv-grad", "aria-hidden": "true" }, box);
  bar.style.background = `linear-gradient(to right, ${L.scale.map(([s, c]) => `${c} ${100 * s}%`).join(", ")})`;
  el("span", { text: num(L.hi) }, box);
}

// The view's data (the JSON text's bytes the server sends, workbench/treeview_data.py: decoded here).
function parse(data) {
  if (data instanceof DataView) data = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof Uint8Array || data instanceof ArrayBuffer) {
    return data.byteLength ? JSON.parse(new TextDecoder().decode(data)) : null;
  }
  return typeof data === "string" ? (data ? JSON.parse(data) : null) : data;
}

// The geometry of the views this page was sent (positions and names, the bulk of a view), by name
// ("geo"): the server sends a view's geometry once, then only its name while the view is recoloured
// (workbench/treeview_data.py, encode). The last few are kept; one not here is asked for again.
const GEO = new Map();
const GEO_KEYS = ["vxy", "vid", "vname", "ep", "eo", "gp", "go", "gcount", "gname", "glabel", "gtext"];

function withGeometry(S, data) {
  if (!data || !data.geo) return data;   // a whole payload (the notebook's)
  if (data.vxy !== undefined) {
    const g = {};
    for (const k of GEO_KEYS) g[k] = data[k];
    GEO.delete(data.geo);
    GEO.set(data.geo, g);
    while (GEO.size > 8) GEO.delete(GEO.keys().next().value);
    return data;
  }
  const g = GEO.get(data.geo);
  if (g) return Object.assign(data, g);
  S.api.setTriggerValue("geo", data.geo);   // not kept (a new page load): the server sends it whole
  return null;
}

// Show a view's data.
function show(S, data) {
  // new marks, or the answer to a request (the same marks, drawn where the server says)
  const fresh = !S.data || S.data.rev !== data.rev || S.data.seq !== data.seq;
  S.h = data.h;
  S.canvas.setAttribute("aria-label", data.desc || "A tree");
  S.wrap.dataset.key = data.key || "";
  S.input.setAttribute("placeholder", data.placeholder || "Find a vertex by name");
  S.input.setAttribute("aria-label", data.placeholder || "Find a vertex by name");
  S.input.setAttribute("aria-controls", `${data.key || "tv"}-list`);
  S.list.setAttribute("id", `${data.key || "tv"}-list`);
  S.layoutBtn.textContent = data.layout === "radial" ? "Tidy" : "Radial";
  S.layoutBtn.setAttribute("aria-label", `Switch to the ${data.layout === "radial" ? "tidy" : "radial"} layout`);
  S.status.textContent = data.status || "";
  S.title.textContent = data.title || "";
  S.title.style.display = data.title ? "block" : "none";
  legend(S, data.legend);
  S.wrap.dataset.rev = data.rev;
  S.wrap.dataset.vertices = String(data.count);
  S.wrap.dataset.selected = data.selName || "";
  if (!S.width) S.width = Math.floor(S.stage.clientWidth) || data.w;
  if (fresh) {
    // what the user sees now, if a newer view than these marks' is on its way (or the canvas is
    // not the width the marks were chosen for): the new marks are drawn moved to it
    const keep = S.m && S.seq && data.seq !== undefined && data.seq < S.seq ? viewport(S) : null;
    // a view the server chose (a new tree, a vertex found, a group opened) numbers past ours
    if (data.seq !== undefined && data.seq > (S.seq || 0)) S.seq = data.seq;
    S.data = data;
    S.m = decode(data);
    S.tip.style.display = "none";
    S.t = transformFor(data, keep || data.vp, S.width, S.h);
    S.tFit = keep ? null : S.t;   // every zoom or pan makes a new S.t
    if (!keep) S.busy.style.display = "none";
    // marks for another width: ask again (unless a newer request, which has the width, is on its way)
    if (!keep && Math.abs(S.width - data.w) >= 2) request(S, { resize: true });
  } else {
    S.data = data;
  }
  if (data.query === S.input.value && S.input.value !== S.chosen) {
    S.active = Math.min(S.active, (data.suggest || []).length - 1);
    renderList(S);
  }
  size(S);
  draw(S);
}

// ---------------------------------------------------------------- the notebook widget (anywidget)
// The model holds the view's data (`_payload`, bytes) and carries each request to Python as an
// `_event` ({name, value, n}); Python answers with new data. A cover's round is the `round` trait,
// moved by a slider in the toolbar when the view has rounds (`rounds` > 0).
function notebookWidget() {
  return {
    render({ model, el: host }) {
      // the notebook's colours for the toolbar (the canvas takes the payload's theme)
      for (const [k, v] of [["--st-text-color", "--jp-ui-font-color1"], ["--st-background-color", "--jp-layout-color0"],
                            ["--st-secondary-background-color", "--jp-layout-color2"],
                            ["--st-border-color", "--jp-border-color1"], ["--st-primary-color", "--jp-brand-color1"],
                            ["--st-font", "--jp-ui-font-family"]]) {
        host.style.setProperty(k, `var(${v})`);
      }
      const me = Math.random().toString(36).slice(2);
      let n = 0;
      const send = (name, value) => {
        model.set("_event", { name, value, n: `${me}:${++n}` });
        model.save_changes();
      };
      const S = host.__treeview = init(host, { setStateValue: send, setTriggerValue: send });
      S.root = host;
      const rounds = model.get("rounds") || 0;
      if (rounds > 0) {
        const box = el("label", { class: "tv-round" }, S.bar);
        box.style.cssText = "display: inline-flex; align-items: center; gap: 5px; font-size: 14px; margin-right: 10px;";
        box.append("Round ");
        const slider = el("input", { type: "range", min: "0", max: String(rounds), step: "1",
                                     value: String(model.get("round")), "aria-label": "Round of the cover" }, box);
        const out = el("output", { text: String(model.get("round")) }, box);
        slider.addEventListener("input", () => {
          out.textContent = slider.value;
          model.set("round", Number(slider.value));
          model.save_changes();
        });
        model.on("change:round", () => { slider.value = String(model.get("round")); out.textContent = slider.value; });
        S.bar.insertBefore(box, S.legend);
      }
      const update = () => { const d = withGeometry(S, parse(model.get("_payload"))); if (d) show(S, d); };
      model.on("change:_payload", update);
      update();
      return () => { S.ro.disconnect(); clearTimeout(S.timer); clearTimeout(S.qtimer); };
    },
  };
}

// In the app, a view draws its own "Skip past this figure" link (as every figure's accessibility
// helper does, workbench/assets/figure_a11y.js): first in the view, visible only when focused, it
// moves the focus to the view's "Describe" (drawn under the canvas by foot, below), past its
// controls. data.skip: { title }, from workbench.components.FigureText.skip.
function skipLink(S, skip) {
  if (!S.skip) {
    S.skip = document.createElement("a");
    S.skip.className = "fig-skip";
    S.skip.href = "#";
    S.root.insertBefore(S.skip, S.root.firstChild);
    S.skip.addEventListener("click", (e) => {
      e.preventDefault();
      const summary = S.describe && S.describe.querySelector("summary");
      if (summary) {
        summary.focus();
        summary.scrollIntoView({ block: "nearest" });
      }
    });
  }
  S.skip.textContent = `Skip past this figure${skip.title ? ": " + skip.title : ""}`;
}

// Under the canvas (in the app): the page's note on how to read the view (data.note), "Describe"
// (data.desc, the canvas's accessible name, as text) and, until it is pressed, "Download"
// (data.download: the server then draws the SVG, PDF and CSV buttons after the view). Drawn here,
// not as a caption, an expander with its text and a button of their own: four elements fewer on
// every run of the page.
const DOWNLOAD_ICON = "M5 20h14v-2H5v2zM19 9h-4V3H9v6H5l7 7 7-7z";   // Material "download"

function foot(S, data) {
  if (!S.describe) {
    S.note = el("p", { class: "tv-note" }, S.wrap);
    S.describe = el("details", { class: "tv-describe" }, S.wrap);
    el("summary", { text: "Describe" }, S.describe);
    S.describeText = el("p", {}, S.describe);
    S.download = el("button", { type: "button", class: "tv-download",
                                title: "SVG or PDF of this figure, as shown here, or its data as CSV" }, S.wrap);
    S.download.innerHTML = `<svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" focusable="false">
      <path fill="currentColor" d="${DOWNLOAD_ICON}"/></svg><span>Download</span>`;
    S.download.addEventListener("click", () => {
      S.download.disabled = true;   // (until the server's answer hides it)
      S.api.setTriggerValue("download", true);
    });
  }
  S.note.textContent = data.note || "";
  S.note.style.display = data.note ? "block" : "none";
  S.describeText.textContent = data.desc || "";
  S.download.style.display = data.download ? "inline-flex" : "none";
  S.download.disabled = false;
}

// The default export for both hosts: called with no argument (anywidget), it gives the widget; called
// with a Streamlit component's arguments, it draws that component's data.
export default function (component) {
  if (component === undefined) return notebookWidget();
  const { setStateValue, setTriggerValue, parentElement } = component;
  let S = parentElement.__treeview;
  if (!S) {
    S = parentElement.__treeview = init(parentElement, { setStateValue, setTriggerValue });
    S.root = parentElement;
  }
  S.api = { setStateValue, setTriggerValue };
  const data = withGeometry(S, parse(component.data));
  if (data) {
    show(S, data);
    if (data.skip) {
      skipLink(S, data.skip);
      foot(S, data);
    }
  }
  return undefined;
}
