"""Bottom-up hidden tree Markov models: SP-BHTMM (EM) and TF-BHTMM (Gibbs sampling).

Castellana & Bacciu, "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models"
(2019); Bacciu, Micheli & Sperduti (2012) for the switching-parent model. ``data`` holds labelled
positional trees in batch form, ``sp`` and ``tf`` the models (scikit-learn density estimators over
trees), ``classifier`` the classifier of section IV-A (one model per class), ``tasks`` classification
and node labelling with the paper's metrics, ``run`` the run protocol.
"""

import importlib

__all__ = ["PositionalTrees", "read_jsonl_trees", "read_xml_trees", "read_trees", "synthetic_trees",
           "SPBHTMM", "TFBHTMM", "BHTMMClassifier"]

# start-up: the models import scikit-learn (about a second), so they are loaded when first named
# (PEP 562); importing engine.htmm.config alone -- its declarations are read at every start of the
# app -- loads neither scikit-learn nor the models.
_WHERE = {"BHTMMClassifier": "classifier", "SPBHTMM": "sp", "TFBHTMM": "tf", "PositionalTrees": "data",
          "read_jsonl_trees": "data", "read_xml_trees": "data", "read_trees": "data", "synthetic_trees": "data"}


def __getattr__(name: str):
    if name not in _WHERE:
        raise AttributeError(f"module 'engine.htmm' has no attribute {name!r}")
    return getattr(importlib.import_module(f"engine.htmm.{_WHERE[name]}"), name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
