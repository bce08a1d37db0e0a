"""TREE-HEDGE: multi-task allocation on a tree of tasks
("Online Sum-Product Computation over Trees", Herbster, Pasteris & Vitale, section 5).

The learner (:class:`TreeHedge`), its baselines, the exact Theorem 9 bound, the loss
environments, brute-force oracles, and the run protocol (:mod:`engine.hedge.run`).
"""

from engine.hedge.baselines import IndependentHedge, SharedHedge
from engine.hedge.bound import Theorem9Bound, c_eta, task_losses, theorem9_bound
from engine.hedge.environments import (ENVIRONMENTS, LossStream, iid_environment, make_environment,
                                       piecewise_environment, read_loss_file, switching_environment)
from engine.hedge.learner import BACKENDS, DEFAULT_BACKEND, TreeHedge
from engine.hedge.potentials import potts_transition

__all__ = ["TreeHedge", "BACKENDS", "DEFAULT_BACKEND", "IndependentHedge", "SharedHedge",
           "Theorem9Bound", "theorem9_bound", "c_eta", "task_losses", "ENVIRONMENTS", "LossStream",
           "piecewise_environment", "iid_environment", "switching_environment", "make_environment",
           "read_loss_file", "potts_transition"]
