# The Tree Inference Workbench for a department server. `docker compose up` serves it (compose.yaml);
# `docker build -t workbench . && docker run -p 8501:8501 workbench` does the same by hand.
# Slim Python, no browser (Chromium is only for the tests), numba's kernels compiled at build time.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PYTHONPATH=/app \
    NUMBA_CACHE_DIR=/app/.numba_cache \
    NUMBA_CPU_NAME=generic \
    TREE_WORKBENCH_DB=/data/runs.sqlite \
    TREE_WORKBENCH_WORKERS=1 \
    PORT=8501

WORKDIR /app

# nginx: the proxy in front of several app processes (TREE_WORKBENCH_WORKERS > 1, docs/lecture-hall.md)
RUN apt-get update && apt-get install -y --no-install-recommends nginx-light && rm -rf /var/lib/apt/lists/*

# The dependencies, in their own layer (rebuilt only when pyproject.toml changes): the engine's and the
# `app` extra's (Streamlit, Plotly, ..., psycopg for WORKBENCH_DB_URL). The app itself runs from /app,
# beside its sample trees, so the package is installed for its dependencies only.
COPY pyproject.toml README.md ./
COPY engine/__init__.py engine/
COPY workbench/__init__.py workbench/
RUN pip install '.[app]' && pip uninstall -y tree-inference-workbench

COPY app.py ./
COPY .streamlit .streamlit
COPY engine engine
COPY workbench workbench
COPY sample_trees sample_trees
COPY sample_scenarios sample_scenarios
COPY sample_networks sample_networks
COPY lessons lessons

# Bake numba's cache into the image: every kernel the app uses compiled once here, in one process
# per core (NUMBA_CPU_NAME=generic, so the cache holds on any x86-64 server), loaded in seconds when
# the server starts.
RUN useradd --create-home --uid 1000 workbench \
    && python -m engine.warmup \
    && mkdir -p /data && chown -R workbench /data /app/.numba_cache

USER workbench
EXPOSE 8501
VOLUME ["/data"]

HEALTHCHECK --interval=30s --timeout=5s --start-period=180s --retries=3 \
    CMD python -c "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/_stcore/health' % os.environ.get('PORT', '8501'), timeout=4)"

# Warm-up (pages rendered once, run workers started), then serve on every interface: one process,
# or TREE_WORKBENCH_WORKERS processes behind nginx on the same port (workbench/hall.py).
CMD ["python", "-m", "workbench.hall", "--address", "0.0.0.0"]
