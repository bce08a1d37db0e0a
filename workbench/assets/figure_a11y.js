// A figure's accessibility helper (a Streamlit v2 component drawn just before the figure, see
// workbench/components.py FigureText): gives the figure that follows it (a Plotly chart; the light
// bars name themselves) role="figure" and its generated description as its accessible name, and
// offers a "Skip past this figure" link, visible only when focused, that moves the focus to the
// figure's "Describe" expander (past the figure's controls and downloads). The tree view needs no
// helper: its canvas names itself and it draws the same link (workbench/assets/treeview.js skipLink).

const TRIES = 40;      // the figure may be drawn after this component: look again, 40 × 100 ms
const WAIT_MS = 100;
const LOOKAHEAD = 6;   // element containers after this one searched for the figure and its expander

function host(el) {
  const root = el.getRootNode();
  return root && root.host ? root.host : el;
}

function me(S) {
  const h = host(S.root);
  return h.closest('[data-testid="stElementContainer"]') || h;
}

// The figure's own pieces: the element containers after this one, up to its "Describe" expander
// (found by its container's key class). Returns [chart or null, the expander's summary or null].
function pieces(S) {
  const mark = `st-key-${S.data.describe}`;
  let chart = null;
  let c = me(S);
  for (let i = 0; c && i < LOOKAHEAD; i++) {
    c = c.nextElementSibling;
    if (!c) break;
    const exp = c.classList.contains(mark) ? c : c.querySelector(`.${mark}`);
    if (exp) return [chart, exp.querySelector("summary")];
    if (!chart) chart = c.querySelector('[data-testid="stPlotlyChart"]');
  }
  return [chart, null];
}

function place(S) {
  const [chart, summary] = pieces(S);
  if (chart && S.data.kind === "chart") {
    chart.setAttribute("role", "figure");
    chart.setAttribute("aria-label", S.data.label);
  }
  return Boolean(summary && (chart || S.data.kind !== "chart"));
}

export default function (component) {
  const { data, parentElement } = component;
  let S = parentElement.__figa11y;
  if (!S) {
    const link = document.createElement("a");
    link.className = "fig-skip";
    link.href = "#";
    parentElement.appendChild(link);
    S = parentElement.__figa11y = { root: parentElement, link, data, timer: null };
    link.addEventListener("click", (e) => {
      e.preventDefault();
      const summary = pieces(S)[1];
      if (summary) {
        summary.focus();
        summary.scrollIntoView({ block: "nearest" });
      }
    });
  }
  S.data = data;
  S.link.textContent = `Skip past this figure${data.title ? ": " + data.title : ""}`;
  clearTimeout(S.timer);
  let n = 0;
  const again = () => {
    if (!place(S) && ++n < TRIES) S.timer = setTimeout(again, WAIT_MS);
  };
  again();
  return () => clearTimeout(S.timer);
}
