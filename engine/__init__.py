"""Tree Inference Workbench engine: the algorithms, in NumPy/SciPy (never Streamlit or Plotly).

Subpackages follow the seeds: ``trees`` (model, formats, generators), ``cover`` (hierarchical
cover, decomposition tree), ``inference`` (belief propagation, online sum-product), ``hedge``,
``forests`` (Chow-Liu, OFDE), ``multilabel`` (RTA), ``htmm`` (SP/TF-BHTMM) and ``runs``.
"""

from engine.errors import EngineError

__version__ = "0.1.0"
__all__ = ["EngineError", "__version__"]
