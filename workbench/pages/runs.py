"""Runs: the run history. Filter runs, look at one, overlay the curves of several, export, delete,
re-run a config, and launch a config or a sweep (engine.runs: registry, store, execute)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

import pandas as pd
import streamlit as st

from engine.jsonio import loads
from engine.files import browser_paths, public_message
from engine.errors import EngineError
from engine.runs.export import export_runs
from engine.runs.registry import config_from_dict, family, family_names, restrict_paths
from engine.runs.store import STATUSES
from workbench.components import beside_buttons, chart
from workbench import address_bar
from workbench.figures.run_figures import curves_figure, metric_figure, run_name
from workbench.runner import history, last_run, launch, launch_sweep
from workbench.session import PageState

#: status -> (badge colour, material icon)
STATUS_BADGE = {"running": ("blue", ":material/autorenew:"), "finished": ("green", ":material/check_circle:"),
                "failed": ("red", ":material/error:"), "cancelled": ("orange", ":material/cancel:"),
                "interrupted": ("gray", ":material/power_off:")}


@dataclass(frozen=True)
class Filters:
    algorithms: tuple[str, ...]
    statuses: tuple[str, ...]
    since: date | None
    until: date | None
    text: str


def installed_families() -> list[str]:
    out = []
    for name in family_names():
        try:
            family(name)
            out.append(name)
        except Exception:  # not installed, or broken: the Runs page still works for the others
            pass
    return out


def example_config() -> str:
    fams = installed_families()
    if not fams:
        return json.dumps({"algorithm": "hedge", "seed": 0}, indent=2)
    return json.dumps(family(fams[0]).config_class().to_dict(), indent=2)


def when(t: float | None) -> str:
    if t is None:
        return ""
    return datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M:%S")


def metric_summary(rec, k: int = 3) -> str:
    """The first ``k`` numeric metrics (the others, and the timings, come after)."""
    items = sorted(((name, v) for name, v in rec.metrics.items()
                    if isinstance(v, (int, float, str)) and not isinstance(v, bool)),
                   key=lambda kv: (not isinstance(kv[1], (int, float)) or "seconds" in kv[0]))[:k]
    return ", ".join(f"{name}={v:.4g}" if isinstance(v, float) else f"{name}={v}" for name, v in items)


def show_value(v) -> str:
    if isinstance(v, float):
        return f"{v:.10g}"
    if isinstance(v, (list, dict)):
        return json.dumps(v)[:200]
    return str(v)


class RunsState(PageState, page="runs"):
    flash: str | None = None                # a message shown once
    select_next: list | None = None         # runs to select in the next run of the page
    chosen: list | None = None              # the runs shown and compared
    live: bool = False                      # runs were in progress at the last look
    pending_delete: list | None = None      # runs the user asked to delete (waiting for Yes)
    refresh: bool = False                   # the buttons: look again for new runs
    config_text: str = ""                   # the config to run (JSON)
    launch: bool = False                    # ... run it
    alg: list | None = None                 # the filters: algorithms
    status: list | None = None              # ... statuses
    dates: tuple = ()                       # ... the days the runs started between
    search: str = ""                        # ... a text the run holds
    curve_one: str | None = None            # one run's curve shown
    curve_plot: None = None                 # ... its figure
    curve_many: str | None = None           # the curve overlaid for several runs
    logx: bool = False                      # ... on a logarithmic x axis
    overlay_plot: None = None               # ... its figure
    metric: str | None = None               # the metric compared
    metric_plot: None = None                # ... its figure
    export_json: None = None                # the downloads of the runs shown: JSON
    export_csv: None = None                 # ... CSV
    rerun: bool = False                     # the buttons on the runs shown: re-run one's config
    delete: bool = False                    # ... delete them
    delete_yes: bool = False                # ... yes, delete
    delete_no: bool = False                 # ... keep them


S = RunsState()


def flash(message: str) -> None:
    S.flash = message


def launch_and_show(cfg, label: str, done: str) -> None:
    """Run ``cfg`` with progress; once recorded, flash ``done`` (``{}``: the new run's id) and
    select the new run in the table."""
    if launch(cfg, family(cfg.algorithm).run, label=label) is not None:
        rid = last_run()
        flash(done.format(rid))
        S.select_next = [rid]
        st.rerun()


def _chosen_record():
    chosen = S.chosen or []
    return str(chosen[0]) if len(chosen) == 1 else None


address_bar.page_head("runs", "Runs", binds={"record": address_bar.Bind(
    seed=lambda r: setattr(S, "select_next", [int(r)]) if r is not None else None,
    read=_chosen_record)})
store = history()
if store is None:
    st.stop()
store.mark_interrupted()
head, refresh = beside_buttons(vertical_alignment="center")
if store.owner is not None:
    head.caption("Classroom mode: the runs of this browser session only (keep this page's address to find "
                 "them again) · the lecturer sees every run")
else:
    head.caption(f"Every run launched from a page or from `python -m engine run` is kept here · "
                 f"`{store.short_name}`" + (" · read-only" if store.read_only else ""))
refresh.button("Refresh", icon=":material/refresh:", key=S.key("refresh"), help="Look again for new runs")
if msg := S.pop("flash"):
    st.success(msg)


# -- runs in progress, from any session or process (polled) ----------------------------------------
def live_panel() -> None:
    running = store.list(status="running")
    if not running:
        if S.pop("live"):
            st.rerun()  # the last one ended: refresh the table
        return
    S.live = True
    st.markdown(f"**Running now** ({len(running)})")
    for rec in running:
        f = rec.progress or 0.0
        el = max(datetime.now(timezone.utc).timestamp() - rec.started, 0.0)
        eta = f" · about {el * (1 - f) / f:.0f} s left" if f > 0.02 else ""
        st.progress(f, text=f"{run_name(rec)}: {rec.message or ''}{eta} (pid {rec.pid} on {rec.host})")


any_running = bool(store.list(status="running", limit=1))
st.fragment(live_panel, run_every=1.0 if any_running else None)()


# -- launch a config -------------------------------------------------------------------------------
with st.expander("Launch a config or a sweep", icon=":material/play_arrow:"):
    st.markdown('A config is a JSON object with an `"algorithm"` and its settings; a `"sweep"` key '
                'such as `{"seed": [0, 1, 2]}` runs the grid of its lists.')
    text = st.text_area("Config (JSON)", value=example_config(), height=180, key=S.key("config_text"))
    if st.button("Run config", type="primary", key=S.key("launch")):
        try:
            spec = loads(text, where="config")
            if not isinstance(spec, dict):
                raise ValueError("a config is a JSON object")
            # a pasted config may name samples and data-folder files only, never a server path
            spec = restrict_paths(spec, browser_paths())
            if "sweep" in spec:
                recs = launch_sweep(spec, label="Sweep")
                if recs is not None:
                    flash(f"Sweep {recs[0].sweep}: {len(recs)} runs recorded "
                          f"({sum(r.status == 'finished' for r in recs)} finished).")
                    S.select_next = [r.id for r in recs]
                    st.rerun()
            else:
                cfg = config_from_dict(spec)
                launch_and_show(cfg, f"Running {cfg.algorithm}", f"{cfg.algorithm} run recorded as run #{{}}.")
        except ValueError as exc:
            st.error(f"config is not valid JSON: {exc}" if not isinstance(exc, EngineError) else public_message(exc))
        except EngineError as exc:
            st.error(public_message(exc))


# -- filters and the table -------------------------------------------------------------------------
everything = store.list()
if not everything:
    st.info("No runs yet. Launch one from a learning page, from the box above, or with "
            "`python -m engine run CONFIG.json`.")
    st.stop()

c1, c2, c3, c4 = st.columns([2, 2, 2, 3])
algs = sorted(set(family_names()) | {r.algorithm for r in everything})
picked_algs = c1.multiselect("Algorithm", algs, key=S.key("alg"))
picked_status = c2.multiselect("Status", list(STATUSES), key=S.key("status"))
days = c3.date_input("Started between", value=(), key=S.key("dates"))
search = c4.text_input("Search", placeholder="label, setting, error…", key=S.key("search"))
days = tuple(days) if isinstance(days, (tuple, list)) else (days,)
filters = Filters(tuple(picked_algs), tuple(picked_status), days[0] if days else None,
                  days[1] if len(days) > 1 else None, search.strip())


def local_midnight(d: date) -> float:
    return datetime(d.year, d.month, d.day).timestamp()  # the browser's day, as the server sees it


records = store.list(algorithm=filters.algorithms or None, status=filters.statuses or None,
                     since=local_midnight(filters.since) if filters.since else None,
                     until=local_midnight(filters.until + timedelta(days=1)) if filters.until else None,
                     text=filters.text or None)
if not records:
    st.info(f"No run matches these filters ({len(everything)} runs in the history).")
    st.stop()

table = pd.DataFrame({
    "id": [r.id for r in records],
    "algorithm": [r.algorithm for r in records],
    "status": [r.status for r in records],
    "started": [when(r.started) for r in records],
    "seconds": [r.seconds for r in records],
    "seed": [r.seed for r in records],
    "label": [r.label for r in records],
    "metrics": [metric_summary(r) if r.status == "finished" else (r.error or r.message or "") for r in records],
})
st.dataframe(table, hide_index=True, width="stretch", height=min(38 + 35 * len(records), 320),
             column_config={"seconds": st.column_config.NumberColumn(format="%.2f"),
                            "id": st.column_config.NumberColumn(format="%d", width="small")})

ids = [r.id for r in records]
names = {r.id: run_name(r) for r in records}
prev = S.pop("select_next") or S.chosen
kept = [i for i in (ids[:1] if prev is None else prev) if i in ids]
S.chosen = kept or ids[:1] if prev else kept
chosen = st.multiselect("Runs to show and compare", ids, key=S.key("chosen"),
                        format_func=lambda i: names.get(i, f"#{i}"))
if not chosen:
    st.info("Pick one run to see it, two or more to overlay their curves.")
    st.stop()
try:
    selected = [store.get(i) for i in chosen]
except EngineError as exc:  # deleted meanwhile, from another session
    st.error(public_message(exc))
    st.stop()

# -- one run, or several overlaid ------------------------------------------------------------------
if len(selected) == 1:
    rec = selected[0]
    st.header(f"Run #{rec.id} · {rec.algorithm}")
    color, icon = STATUS_BADGE.get(rec.status, ("gray", None))
    st.badge(rec.status, icon=icon, color=color)
    info = [f"started {when(rec.started)}"]
    if rec.seconds is not None:
        info.append(f"{rec.seconds:.2f} s")
    info += [f"seed {rec.seed}", f"code {rec.code_version}"]
    if rec.label:
        info.append(f"label {rec.label}")
    if rec.sweep:
        info.append(f"sweep {rec.sweep}")
    st.caption(" · ".join(info))
    if rec.error:
        (st.error if rec.status == "failed" else st.warning)(rec.error)
    left, right = st.columns([1, 2])
    with left:
        st.markdown("**Config**")
        st.json(rec.config, expanded=True)
        if rec.metrics:
            st.markdown("**Metrics**")
            st.dataframe(pd.DataFrame({"metric": list(rec.metrics),
                                       "value": [show_value(v) for v in rec.metrics.values()]}),
                         hide_index=True, width="stretch")
    with right:
        if rec.status == "running":
            st.progress(rec.progress or 0.0, text=f"{rec.message or 'running'} (pid {rec.pid} on {rec.host})")
        elif rec.curves:
            curve = st.selectbox("Curve", list(rec.curves), key=S.key("curve_one"))
            chart(curves_figure([rec], curve), key=S.key("curve_plot"), name=f"run_{curve}",
                  describe=f"The curve {curve} of run {run_name(rec)} ({rec.status}, {len(rec.curves[curve]):,} points).")
        else:
            st.info("This run has no curves.")
else:
    st.header(f"{len(selected)} runs compared")
    curve_names = sorted({c for r in selected for c in r.curves})
    metric_names = sorted({m for r in selected for m, v in r.metrics.items()
                           if isinstance(v, (int, float)) and not isinstance(v, bool)})
    left, right = st.columns([2, 1])
    with left:
        if curve_names:
            curve = st.selectbox("Curve", curve_names, key=S.key("curve_many"))
            log_x = st.toggle("Logarithmic x axis", key=S.key("logx"))
            chart(curves_figure(selected, curve, log_x=log_x), key=S.key("overlay_plot"), name=f"runs_{curve}",
                  describe=f"The curve {curve} of {sum(bool(r.curves.get(curve)) for r in selected)} of the "
                  f"{len(selected)} runs compared, one line per run" + (", logarithmic x axis." if log_x else "."))
        else:
            st.info("None of these runs has curves.")
    with right:
        if metric_names:
            metric = st.selectbox("Metric", metric_names, key=S.key("metric"))
            chart(metric_figure(selected, metric), key=S.key("metric_plot"), name=f"runs_{metric}",
                  describe=f"The metric {metric} of each of the {len(selected)} runs compared, one bar per run.")
    st.dataframe(pd.DataFrame({run_name(r): {m: r.metrics.get(m) for m in metric_names} for r in selected}),
                 width="stretch")

# -- actions ---------------------------------------------------------------------------------------
st.divider()
a1, a2, a3, a4 = st.columns(4)
stem = f"run_{chosen[0]}" if len(chosen) == 1 else f"runs_{'_'.join(map(str, chosen[:6]))}"
# the files are built only when a button is pressed (curves can be long)
a1.download_button("Export JSON", lambda: export_runs(selected, "json"), file_name=f"{stem}.json",
                   mime="application/json", icon=":material/download:", key=S.key("export_json"), on_click="ignore")
a2.download_button("Export CSV", lambda: export_runs(selected, "csv"), file_name=f"{stem}.csv",
                   mime="text/csv", icon=":material/download:", key=S.key("export_csv"), on_click="ignore")
rerun = a3.button("Re-run this config", icon=":material/replay:", key=S.key("rerun"), disabled=len(selected) != 1,
                  help="Run the same config again (a new record); pick exactly one run")
if a4.button("Delete…", icon=":material/delete:", key=S.key("delete")):
    S.pending_delete = list(chosen)

pending = S.pending_delete
if pending:
    busy = [r.id for r in selected if r.id in pending and r.status == "running"]
    st.warning(f"Delete {'run' if len(pending) == 1 else 'runs'} {', '.join(f'#{i}' for i in pending)} "
               "from the history? This cannot be undone.")
    y, n, _ = st.columns([1, 1, 4])
    if y.button("Yes, delete", type="primary", key=S.key("delete_yes")):
        try:
            for i in pending:
                store.delete(i)
            flash(f"Deleted {len(pending)} run{'s' if len(pending) != 1 else ''}.")
        except EngineError as exc:
            flash(f"Not all deleted: {exc}")
        del S.pending_delete
        st.rerun()
    if n.button("Keep", key=S.key("delete_no")):
        del S.pending_delete
        st.rerun()

if rerun and len(selected) == 1:
    rec = selected[0]
    try:
        cfg = config_from_dict(restrict_paths(rec.config, browser_paths()))
        launch_and_show(cfg, f"Re-running run #{rec.id}", f"Run #{rec.id} re-run as run #{{}}.")
    except EngineError as exc:
        st.error(public_message(exc))
