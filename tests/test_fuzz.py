"""The fast subset of the fuzz corpus (``python -m tests.fuzz.run`` runs all of it, with a table).

Every input must end in exit 2 with exactly one ``error:`` line, or exit 0 with a right answer,
within 30 s and 1 GB.
"""

import pytest

from tests.fuzz.corpus import quick
from tests.fuzz.run import table, warm_up
from tests.fuzz.runner import BAD, run_cases


@pytest.mark.slow   # over ten seconds here (subprocesses, compiling, a large file or pgmpy): make test only
@pytest.mark.timeout(600) if hasattr(pytest.mark, "timeout") else (lambda f: f)
def test_quick_fuzz_corpus(tmp_path):
    cases = quick()
    assert len(cases) >= 100 and {c.command for c in cases} >= {"info", "replay", "run", "runs", "hedge", "bhtmm"}
    warm_up()
    outcomes = run_cases(cases, tmp_path, jobs=2)
    bad = [f"[{o.kind}] {o.case.command} / {o.case.name}: {o.detail[:300]}" for o in outcomes if o.kind in BAD]
    assert not bad, table(outcomes) + "\n" + "\n".join(bad[:20])
