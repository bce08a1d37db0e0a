"""Reproduce: run a paper's protocol with today's code and read our numbers beside the published
ones (engine.reproduce); earlier reports from the run history, each downloadable."""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import streamlit as st

from engine.errors import EngineError
from engine.files import public_message
from engine.reproduce import Report, paper_module, plan, run
from workbench import address_bar
from workbench.components import chart
from workbench.declarations.page_table import PAGES
from workbench.figures.reproduce_figures import report_figure, rows_frame
from workbench.runner import history, last_run, launch
from workbench.session import Family, PageState
from workbench.text import md
from workbench.widgets import widget

SPEC = PAGES["reproduce"]


class ReproduceState(PageState, page="reproduce"):
    report: int | None = None        # the run id of the report shown
    result: object | None = None     # the last reproduction's result (shown even without a run history)
    fig: Family[None] = None         # the report's figures, by number
    dl_md: None = None               # the report's downloads: Markdown
    dl_html: None = None             # ... HTML
    pick: int | None = None          # the earlier report chosen


S = ReproduceState()


def _cite(name: str) -> str:
    mod = paper_module(name)
    return f"\"{mod.TITLE}\" ({mod.AUTHORS})"


def _choose_report(rid) -> None:
    S.report = int(rid) if rid is not None and str(rid).isdigit() else None


address_bar.page_head("reproduce", "Reproduce the papers",
                "Run a paper's protocol on the benchmark data with today's code, and read our number beside the "
                "published one, the difference, and its spread over seeds and folds. The same reproduction runs "
                "from the command line: `python -m engine reproduce PAPER [--quick]`.",
                {"report": address_bar.Bind(seed=_choose_report, read=lambda: None if S.report is None else str(S.report)),
                 # run=1 in a link starts the reproduction; the page's own address points at the report instead
                 "run": address_bar.run_bind("reproduce", lambda: False)})

store = history()
left, right = st.columns([1, 3], gap="large")
with left:
    paper = widget(SPEC, "paper")
    st.caption(_cite(paper))
    quick = widget(SPEC, "quick")
    try:
        p = plan(paper, quick=quick)
        st.caption(md(p.protocol))
        if p.missing:
            st.caption("Not in the data folder: " + ", ".join(m.name for m in p.missing) + " (the report says where "
                       "to get them).")
    except EngineError as exc:
        st.error(public_message(exc))
        p = None
    go = st.button("Reproduce", type="primary", icon=":material/play_arrow:", disabled=p is None)

with right:
    config = SPEC.run_config({"paper": paper, "quick": bool(quick)})
    if p is not None and (go or address_bar.run_once("reproduce", config)):
        done = launch(config, run, label=f"Reproducing {paper}" + (" (quick)" if quick else ""))
        if done is not None:
            S.report = last_run()
            S.result = done   # shown even without a run history
    reports = [] if store is None else store.list(algorithm="reproduce", status="finished")
    chosen = S.report
    report = None
    if chosen is not None and store is not None:
        try:
            rec = store.get(chosen)
            if rec.algorithm == "reproduce" and rec.status == "finished":
                report = Report.from_dict(rec.artefacts["report"])
        except (EngineError, KeyError):
            st.warning(f"Run {chosen} is not a finished reproduction in the run history.")
    elif store is None and S.result is not None:
        report = Report.from_dict(S.result.artefacts["report"])
    if report is None:
        st.info("Pick a paper and **Reproduce**, or open an earlier report below. The quick protocol of the "
                "optimal cover takes seconds.")
    else:
        s = report.settings
        st.header(f"Reproducing \"{report.title}\" ({report.authors})")
        if s.get("quick"):
            st.warning("Quick protocol: a reduced run (fewer seeds, folds or iterations), to check that everything "
                       "works, not the paper's protocol.", icon=":material/speed:")
        st.caption(md(f"Made on {s.get('created', '?')} with code {s.get('code_version', '?')} in "
                      f"{s.get('seconds', 0):.0f} s (load average {s.get('load_average', '?')}). {report.protocol}"))
        compared = [r for r in report.rows if r.difference is not None]
        num = st.column_config.TextColumn(width="small")
        st.dataframe(rows_frame(report), hide_index=True, width="stretch", column_config={
            "data": st.column_config.TextColumn(width="medium"), "metric": st.column_config.TextColumn(width="medium"),
            "published": num, "ours": num, "spread (sd, n)": num, "difference": num})
        st.caption(f"{len(compared)} of {len(report.rows)} rows compared with a published number. Spread: the "
                   "standard deviation of ours over the seeds or folds (n); difference: ours minus published.")
        for i, f in enumerate(report.figures):
            chart(report_figure(f), key=S.key("fig", i), name=f"{report.paper}-{f.name}", width="stretch",
                  describe=f"Figure {i + 1} of {len(report.figures)} of the report: {f.title}, "
                  f"{len(f.series)} series ({', '.join(f.series)}). {f.caption}")
            if f.caption:
                st.caption(f.caption)
        if report.missing:
            st.markdown("**Data sets of the paper not found in the data folder**")
            for m in report.missing:
                st.markdown(f"- `{m.name}` ({md(m.used_for)}): {md(m.where)}")
        if report.notes:
            with st.expander("Notes and settings"):
                for n in report.notes:
                    st.markdown(f"- {md(n)}")
                st.json(s, expanded=False)
        c1, c2 = st.columns(2)
        stem = f"reproduce-{report.paper}" + ("-quick" if s.get("quick") else "")
        c1.download_button("Report as Markdown", data=lambda r=report: r.markdown(figure_dir=None),
                           file_name=f"{stem}.md", mime="text/markdown", icon=":material/download:",
                           on_click="ignore", key=S.key("dl_md"))
        c2.download_button("Report as HTML", data=lambda r=report: r.html(), file_name=f"{stem}.html",
                           mime="text/html", icon=":material/download:", on_click="ignore", key=S.key("dl_html"))

    st.header("Earlier reports")
    if not reports:
        st.caption("None yet in the run history: reproductions started here or by `python -m engine reproduce` "
                   "are kept there.")
    else:
        table = pd.DataFrame([{
            "run": r.id, "paper": r.config.get("paper"), "protocol": "quick" if r.config.get("quick") else "full",
            "started": datetime.fromtimestamp(r.started).strftime("%Y-%m-%d %H:%M"),
            "seconds": None if r.seconds is None else round(r.seconds, 1),
            "compared": r.metrics.get("compared"), "missing data sets": r.metrics.get("missing"),
            "code": r.code_version} for r in reports])
        st.dataframe(table, hide_index=True, width="stretch")
        ids = [r.id for r in reports]
        names = {r.id: f"run {r.id}: {r.config.get('paper')} ({'quick' if r.config.get('quick') else 'full'}), "
                       f"{datetime.fromtimestamp(r.started).strftime('%Y-%m-%d %H:%M')}" for r in reports}
        pick = st.selectbox("Open a report", ids, index=ids.index(chosen) if chosen in ids else None,
                            format_func=names.get, placeholder="Choose an earlier report", key=S.key("pick"))
        if pick is not None and pick != chosen:
            S.report = pick
            st.rerun()
