"""Forest density estimation: batch Chow-Liu and online OFDE (Koriche, "Online Forest Density
Estimation").

Modules, one per idea of the paper: :mod:`~engine.forests.data` (benchmark CSVs, user CSVs, a
synthetic Markov-tree source), :mod:`~engine.forests.estimators` (Jeffreys counts, the closed-form
forest log-loss, eq. 1, and the mixture log-loss, eq. 5), :mod:`~engine.forests.structure` (greedy
matroid / Kruskal), :mod:`~engine.forests.fpl` (Follow the Perturbed Leader),
:mod:`~engine.forests.swap` (swap rounding), :mod:`~engine.forests.ofde` (Algorithm 1),
:mod:`~engine.forests.chowliu` (CL and thresholded CL), :mod:`~engine.forests.validation` (the one
check of samples given to the estimators), :mod:`~engine.forests.evaluation` and
:mod:`~engine.forests.run` (the run protocol). ``ChowLiu`` and ``OFDE`` are scikit-learn density
estimators; ``OFDE`` also has river's verbs.
"""

__all__: list[str] = []
