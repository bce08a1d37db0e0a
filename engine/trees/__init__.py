"""Trees: the immutable model, file formats, generators and layout."""

from engine.trees.formats import format_tree_text, parse_tree_text, read_tree, write_tree
from engine.trees.generators import GENERATORS, generate
from engine.trees.model import Tree

__all__ = ["Tree", "read_tree", "write_tree", "parse_tree_text", "format_tree_text", "generate", "GENERATORS"]
