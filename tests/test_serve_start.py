"""What the served app (``workbench.serve``) has loaded when its first session can arrive."""

import json
import os
import subprocess
import sys

from tests.conftest import ROOT

# the server's start up to the moment it would serve, in a fresh interpreter: Streamlit's own
# ``main`` replaced by one that reports what is imported and how far, then returns
STARTED = """
import json, sys
import streamlit.web.cli as cli

def serving():
    def whole(name):
        mod = sys.modules.get(name)
        return mod is not None and getattr(getattr(mod, "__spec__", None), "_initializing", False) is False
    print("SERVING " + json.dumps({"pandas": whole("pandas") and hasattr(sys.modules["pandas"], "Series"),
                                   "plotly": "plotly.graph_objects" in sys.modules}), flush=True)
    return 0

cli.main = serving
from workbench import serve
sys.exit(serve.main(["--no-warm-up", "--port", "8599"]))
"""


def test_pandas_is_whole_before_the_first_session_without_the_warm_up(tmp_path):
    """Plotly peeks at pandas in ``sys.modules`` on every figure it builds, never importing it: a
    chart drawn while another session's script imported pandas for the first time failed with
    "partially initialized module 'pandas' has no attribute 'Series'" (a hall's app process, which
    starts without the warm-up: the lecturer's poll chart as students arrived). The server imports
    it whole before it serves."""
    env = dict(os.environ, TREE_WORKBENCH_RUN_WORKERS="0", TREE_WORKBENCH_DB=str(tmp_path / "runs.sqlite"),
               PYTHONPATH=str(ROOT))
    env.pop("TREE_WORKBENCH_DB_URL", None)
    done = subprocess.run([sys.executable, "-c", STARTED], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    line = next((ln for ln in done.stdout.splitlines() if ln.startswith("SERVING ")), None)
    assert done.returncode == 0 and line is not None, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    got = json.loads(line.removeprefix("SERVING "))
    assert got == {"pandas": True, "plotly": True}, got
