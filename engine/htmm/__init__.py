"""Bottom-up hidden tree Markov models: SP-BHTMM (EM) and TF-BHTMM (Gibbs sampling).

Castellana & Bacciu, "Bayesian Tensor Factorisation for Bottom-up Hidden Tree Markov Models"
(2019); Bacciu, Micheli & Sperduti (2012) for the switching-parent model. ``data`` holds labelled
positional trees in batch form, ``sp`` and ``tf`` the models (scikit-learn density estimators over
trees), ``classifier`` the classifier of section IV-A (one model per class), ``tasks`` classification
and node labelling with the paper's metrics, ``run`` the run protocol.
"""

from engine.htmm.classifier import BHTMMClassifier
from engine.htmm.data import PositionalTrees, read_jsonl_trees, read_trees, read_xml_trees, synthetic_trees
from engine.htmm.sp import SPBHTMM
from engine.htmm.tf import TFBHTMM

__all__ = ["PositionalTrees", "read_jsonl_trees", "read_xml_trees", "read_trees", "synthetic_trees",
           "SPBHTMM", "TFBHTMM", "BHTMMClassifier"]
