"""``python -m benchmarks.bench_views --compare``: its flags refused with a line naming the
culprit, and its table. (What it measures runs for minutes in Chromium: docs/benchmarks.md.)"""

from __future__ import annotations

import pytest

from benchmarks import bench_views


@pytest.mark.parametrize("argv, said", [
    (["--compare", "/no/such/app"], "each with an app.py: not /no/such/app"),
    (["--compare", ",".join(["."] * 5)], "1 to 4 app folders"),
    (["--compare", ".", "--rounds", "0"], "rounds 1..50 (got 0)"),
    (["--compare", ".", "--size", "2"], "size 3..1,000,000 (got 2)"),
    (["--compare", ".", "--size", "x"], "invalid int value: 'x'"),
])
def test_compare_refuses_bad_flags(argv, said, capsys):
    with pytest.raises(SystemExit) as exc:
        bench_views.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert said in err, err


def test_compare_table_gives_each_app_its_median_and_ratio():
    res = {"size": 100_000, "rounds": 10, "load_average_start": [3.4, 2.8, 2.8], "load_average_end": [4.4, 3.0, 2.9],
           "compare": [{"app_dir": "/tmp/head", "commit": "b0b95b6", "usable_s_median": 2.92,
                        "usable_s_range": [2.56, 3.27], "ratio_to_first": 1.0},
                       {"app_dir": "/work/main", "commit": "cf5a647", "usable_s_median": 2.62,
                        "usable_s_range": [2.55, 2.75], "ratio_to_first": 0.897}]}
    table = bench_views.compare_table(res)
    assert "random tree of 100,000 vertices, fresh sessions, 10 alternating rounds" in table
    assert "| /work/main | cf5a647 | 2.62 | 2.55–2.75 | 0.897 |" in table.splitlines()
    assert "| /tmp/head | b0b95b6 | 2.92 | 2.56–3.27 | 1.000 |" in table.splitlines()
