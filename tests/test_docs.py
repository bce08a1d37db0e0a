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
