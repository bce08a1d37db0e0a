"""Runs: one run protocol for every learning family, the run history and sweeps.

``protocol`` (the config and result types every family follows), ``registry`` (algorithm name ->
family module, config loading), ``store`` (the SQLite run history), ``execute`` (a recorded run,
sweeps with joblib or dask) and ``export`` (JSON/CSV). Import the submodules you need.
"""

__all__: list[str] = []
