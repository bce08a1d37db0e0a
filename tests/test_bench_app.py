"""``python -m benchmarks.bench_app --compare``: its flags refused with a line naming the culprit,
and its table. (What it measures runs for minutes: docs/benchmarks.md, "Classroom speed".)"""

from __future__ import annotations

import pytest

from benchmarks import bench_app


@pytest.mark.parametrize("argv, said", [
    (["--compare", "/no/such/app"], "each with an app.py: not /no/such/app"),
    (["--compare", ",".join(["."] * 7)], "1 to 6 app folders"),
    (["--compare", ".", "--blocks", "0"], "blocks 1..100"),
    (["--compare", ".", "--tree-size", "2"], "tree size 3..1,000,000"),
])
def test_compare_refuses_bad_flags(argv, said, capsys):
    with pytest.raises(SystemExit) as exc:
        bench_app.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert said in err, err


def test_compare_table_gives_each_app_its_ratio_to_the_first():
    res = {"blocks": 4, "students": 3, "interactions_per_block": 48, "tree_size": 1000,
           "load_average_start": [1.0, 1.0, 1.0], "load_average_end": [2.0, 1.5, 1.2],
           "compare": [{"app_dir": "/tmp/old", "commit": "6ad0193", "ms_per_interaction_median": 44.9,
                        "ms_per_interaction_range": [40.1, 50.2], "ratio_to_first_median": 1.0,
                        "ratio_to_first_range": [1.0, 1.0]},
                       {"app_dir": "/work/main", "commit": "d2441dd", "ms_per_interaction_median": 21.7,
                        "ms_per_interaction_range": [20.0, 25.0], "ratio_to_first_median": 0.483,
                        "ratio_to_first_range": [0.45, 0.52]}]}
    table = bench_app._compare_table(res)
    assert "4 alternating blocks of 48 interactions" in table
    assert "| /work/main | d2441dd | 21.7 | 20.0–25.0 | 0.483 | 0.45–0.52 |" in table.splitlines()


def test_a_hall_gets_free_ports_in_a_row():
    """nginx and each app process of a hall take port, port + 1, ...: all free when chosen (a run
    once stopped on "port 36912 is in use" when only the first was checked)."""
    import socket

    from benchmarks.app_client import free_port

    port = free_port(span=3)
    socks = [socket.socket() for _ in range(3)]
    try:
        for i, s in enumerate(socks):
            s.bind(("127.0.0.1", port + i))
    finally:
        for s in socks:
            s.close()
