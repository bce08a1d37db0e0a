"""Hierarchical covers of trees ("Online Sum-Product Computation over Trees", Herbster, Pasteris &
Vitale, sections 2-4): the optimal (2,s)-cover of Figure 1,
its decomposition tree D, the rake-only variant, a validator of Definition 1 and exact brute-force
optima for small trees."""

from engine.cover.hierarchical import (
    COMPRESS,
    EDGE,
    KIND_NAMES,
    LOWER,
    RAKE,
    ROOT,
    UPPER,
    HierarchicalCover,
    RoundTrace,
    cover_root,
    default_root,
    heights_by_root,
    optimal_cover,
    rake_only_cover,
)

__all__ = [
    "EDGE", "RAKE", "COMPRESS", "ROOT", "UPPER", "LOWER", "KIND_NAMES", "HierarchicalCover", "RoundTrace",
    "optimal_cover", "rake_only_cover", "cover_root", "default_root", "heights_by_root", "COVERS",
]

#: The covers by name, as the online model and its scenarios name them.
COVERS = {"optimal": optimal_cover, "rake-only": rake_only_cover}

from engine.cover.brute_force import CoverOptima, brute_force_optima, min_cover_height  # noqa: E402
from engine.cover.validate import collection_violations, cover_violations  # noqa: E402

__all__ += ["CoverOptima", "brute_force_optima", "min_cover_height", "collection_violations",
            "cover_violations"]
from engine.cover.examples import FIGURE1_EDGES, figure1_tree  # noqa: E402

__all__ += ["FIGURE1_EDGES", "figure1_tree"]
