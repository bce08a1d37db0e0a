"""The README a newcomer reads, and the docs it points to."""

import re

from tests.conftest import ROOT

README_LIMIT = 20_000  # characters: the two commands, the pages, the lecturers' path; the rest is in docs/


def test_readme_is_short():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text) <= README_LIMIT, f"README.md has {len(text):,} characters; move tables to docs/"
    assert text.index("make run") < 400 and text.index("make test") < 400  # the two commands first


def test_every_relative_link_in_readme_and_docs_resolves():
    broken = []
    for md in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = (md.parent / path).resolve() if path else md
            if not dest.is_file():
                broken.append(f"{md.name}: {target}")
                continue
            if anchor:
                headings = re.findall(r"^#+ (.+)$", dest.read_text(encoding="utf-8"), flags=re.M)
                slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}
                if anchor not in slugs:
                    broken.append(f"{md.name}: {target} (no such heading)")
    assert not broken, broken


def test_one_notes_file_per_paper_and_the_benchmarks():
    names = {p.name for p in (ROOT / "docs").glob("*.md")}
    assert {"benchmarks.md", "online-sum-product.md", "sum-product-lecture-notes.md",
            "online-forest-density-estimation.md", "random-spanning-trees.md", "bottom-up-htmm.md"} <= names


# What a user reads names a paper by its title and authors, never by the file it was read from
# ("seed 000", "lecture notes 001") or by a tracker that is not in the repository ("the issue").
BANNED = re.compile(r"seed 00\d|seeds 00\d|lecture notes 00\d|lecture 00\d|the issue", re.IGNORECASE)
USER_FACING = ["README.md", "app.py", "docs", "lessons", "engine", "workbench", "benchmarks", "sample_scenarios",
               "sample_trees", "sample_networks", ".streamlit"]


def _user_facing_files():
    for name in USER_FACING:
        path = ROOT / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []
        for p in files:
            if "__pycache__" not in p.parts and p.suffix in {".py", ".md", ".toml", ".json", ".txt", ".csv", ""}:
                yield p
    # the tests are read too (a researcher checking a number opens them), all but this file
    yield from (p for p in sorted((ROOT / "tests").rglob("*.py")) if p.name != "test_docs.py")


def test_no_user_facing_text_names_a_seed_file_or_the_tracker():
    hits = []
    for p in _user_facing_files():
        for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
            if BANNED.search(line):
                hits.append(f"{p.relative_to(ROOT)}:{i}: {line.strip()[:80]}")
    assert not hits, "\n".join(hits)


def test_cli_help_names_no_seed_file():
    import contextlib
    import io

    from engine.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    texts = [parser.format_help()]
    for p in sub.choices.values():
        texts.append(p.format_help())
        for a in p._actions:
            if a.__class__.__name__ == "_SubParsersAction":
                texts += [q.format_help() for q in a.choices.values()]
    with contextlib.redirect_stdout(io.StringIO()):
        bad = [t for t in texts if BANNED.search(t)]
    assert not bad, bad[0][:400]
    assert any("Herbster, Pasteris & Vitale" in t for t in texts)
