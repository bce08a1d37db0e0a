"""Which module runs which algorithm, and turning a JSON config into a run config.

The five learning families of the workbench (the algorithms of the papers), and ``reproduce`` (a
paper's whole protocol, :mod:`engine.reproduce`), each expose
``run(config, progress=None) -> RunResult`` in their own module (see :mod:`engine.runs.protocol`).
This registry maps a config's ``algorithm`` to ``(module, config class)`` and imports the module
only when a config of that family is loaded, so ``python -m engine runs list`` stays instant and a
family that is not installed gives one clear line instead of an import traceback.

Registry hooks, for plug-in families (and for the tests' own small family):

* :func:`register_family` ``(name, module, config_class)`` in Python;
* the environment variable ``TREE_WORKBENCH_FAMILIES``, read when this module is imported, for
  other processes (a CLI subprocess, the app server, a worker):
  ``"name=package.module:ConfigClass,other=pkg.mod:OtherConfig"``.

Config files: :func:`load_spec` reads a dict or a JSON file; a relative file path given as a
top-level setting of a config *file* (a tree, a data set) is taken relative to the file's folder.
A tree or data setting may be a file or a generator spec (``{"generate": "path", "n": 15}``,
resolved by the family through :func:`engine.trees.spec.tree_from_spec`). A config with a
``"sweep"`` key is a sweep, expanded by :func:`engine.runs.execute.expand_sweep`.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from engine.errors import InvalidParameterError
from engine.files import read_input
from engine.jsonio import loads
from engine.runs.protocol import RunConfig

__all__ = ["Family", "FAMILIES", "register_family", "unregister_family", "family_names", "family",
           "config_class", "load_spec", "load_config", "config_from_dict", "FAMILIES_ENV", "restrict_paths"]

FAMILIES_ENV = "TREE_WORKBENCH_FAMILIES"

#: algorithm name -> (module path, config class name), in menu order
FAMILIES: dict[str, tuple[str, str]] = {
    "hedge": ("engine.hedge.run", "HedgeConfig"),
    "ofde": ("engine.forests.run", "OfdeConfig"),
    "chowliu": ("engine.forests.run", "ChowLiuConfig"),
    "rta": ("engine.multilabel.run", "RtaConfig"),
    "bhtmm": ("engine.htmm.run", "BhtmmConfig"),
    "reproduce": ("engine.reproduce", "ReproduceConfig"),  # a paper's protocol, its report as artefact
}
_BUILTIN = dict(FAMILIES)


@dataclass(frozen=True)
class Family:
    """A loaded family: its name, module path, config class and ``run`` function."""

    name: str
    module: str
    config_class: type
    run: Callable


def register_family(name: str, module: str, config_class: str) -> None:
    """Make ``algorithm: name`` run ``module.run`` with configs of ``module.config_class``.

    The module is imported only when a config of this family is loaded. Registering a built-in
    name again replaces it (e.g. to try a development version of a family).
    """
    if not name or not isinstance(name, str):
        raise InvalidParameterError(f"a family name must be a non-empty string, got {name!r}")
    FAMILIES[name] = (str(module), str(config_class))


def unregister_family(name: str) -> None:
    """Forget a registered family (a built-in one goes back to its built-in module)."""
    if name in _BUILTIN:
        FAMILIES[name] = _BUILTIN[name]
    else:
        FAMILIES.pop(name, None)


def _register_from_env() -> None:
    text = os.environ.get(FAMILIES_ENV, "").strip()
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, sep, target = item.partition("=")
        module, sep2, cls = target.partition(":")
        if not (sep and sep2 and name and module and cls):
            raise InvalidParameterError(
                f"{FAMILIES_ENV} entry {item!r} is not of the form name=package.module:ConfigClass")
        register_family(name.strip(), module.strip(), cls.strip())


_register_from_env()


def family_names() -> list[str]:
    """Every registered algorithm name (installed or not)."""
    return list(FAMILIES)


def family(name: str) -> Family:
    """Import the family ``name``; one clear error line if it is unknown or not installed."""
    if name not in FAMILIES:
        raise InvalidParameterError(
            f"unknown algorithm {name!r}; expected one of {', '.join(FAMILIES)}")
    module_name, class_name = FAMILIES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # only "this family is missing" is a user error; a broken import inside it is a bug
        missing = exc.name or ""
        if module_name == missing or module_name.startswith(missing + "."):
            raise InvalidParameterError(
                f"algorithm {name!r} is not installed in this version of the workbench "
                f"(module {module_name} not found)") from None
        raise
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, RunConfig)):
        raise InvalidParameterError(f"module {module_name} has no run config class {class_name}")
    run = getattr(module, "run", None)
    if not callable(run):
        raise InvalidParameterError(f"module {module_name} has no run(config, progress) function")
    return Family(name, module_name, cls, run)


def config_class(name: str) -> type:
    """The config dataclass of algorithm ``name``."""
    return family(name).config_class


def _resolve_path(v, base: Path):
    """``v`` made absolute if it is a relative path to an existing file beside the config."""
    if isinstance(v, str) and v and not Path(v).is_absolute() and (base / v).exists():
        return str((base / v).resolve())
    return v


#: config keys that may hold a file name, and the words that are not files there
_PATH_KEYS = ("tree", "loss_file", "train", "test", "valid", "data", "labels")
_NOT_FILES = {"", "synthetic"}


def restrict_paths(d: dict[str, Any], policy) -> dict[str, Any]:
    """``d`` with every file it names resolved under ``policy`` (an :class:`engine.files.PathPolicy`),
    sweep values included; a name the policy refuses raises one line naming the key.

    The app calls it with ``engine.files.browser_paths()`` on a pasted config, so that a config can
    name samples and data-folder files but not ``/etc/passwd`` or ``/dev/zero``.
    """
    def fix(key, v):
        if key not in _PATH_KEYS or not isinstance(v, str) or v in _NOT_FILES:
            return v
        if key == "labels" and v.strip().lstrip("-").isdigit():
            return v
        return str(policy.resolve(v, f"config {key!r}"))

    out = {k: fix(k, v) for k, v in d.items()}
    if isinstance(out.get("sweep"), dict):
        out["sweep"] = {k: ([fix(k, x) for x in v] if isinstance(v, list) else fix(k, v))
                        for k, v in out["sweep"].items()}
    return out


def _resolve_paths(d: dict[str, Any], base: Path) -> dict[str, Any]:
    out = {k: (v if k == "algorithm" else _resolve_path(v, base)) for k, v in d.items()}
    if isinstance(out.get("sweep"), dict):
        out["sweep"] = {k: ([_resolve_path(x, base) for x in v] if isinstance(v, list) else v)
                        for k, v in out["sweep"].items()}
    return out


def load_spec(source) -> dict[str, Any]:
    """A config or sweep as a plain dict, from a dict, a JSON file path or a :class:`RunConfig`."""
    if isinstance(source, RunConfig):
        return source.to_dict()
    if isinstance(source, dict):
        d = dict(source)
    elif isinstance(source, (str, Path)):
        path = Path(source)
        d = loads(read_input(path, error=InvalidParameterError), where=str(path))
        if not isinstance(d, dict):
            raise InvalidParameterError(f"{path}: a config is a JSON object, got {type(d).__name__}")
        d = _resolve_paths(d, path.resolve().parent)
    else:
        raise InvalidParameterError(f"a config is a dict or a JSON file path, got {type(source).__name__}")
    if "algorithm" not in d:
        raise InvalidParameterError(
            f"config has no 'algorithm'; expected one of {', '.join(FAMILIES)}")
    return d


def config_from_dict(d: dict[str, Any]) -> RunConfig:
    """The family's config object for a (non-sweep) config dict."""
    if "sweep" in d:
        raise InvalidParameterError(
            "this config is a sweep (it has a 'sweep' key): run it with execute_sweep or "
            "'python -m engine run', or expand it with expand_sweep")
    alg = d.get("algorithm")
    if not isinstance(alg, str):
        raise InvalidParameterError(f"config 'algorithm' must be a string, got {alg!r}")
    try:
        return family(alg).config_class.from_dict(d)
    except TypeError as exc:  # e.g. a required setting missing
        raise InvalidParameterError(f"{alg} config: {exc}") from None


def load_config(source) -> RunConfig:
    """A run config from a dict, a JSON file or a config object (not a sweep)."""
    if isinstance(source, RunConfig):
        return source
    return config_from_dict(load_spec(source))
