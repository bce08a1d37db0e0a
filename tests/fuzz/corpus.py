"""Adversarial inputs for every command of ``python -m engine``, generated deterministically.

For every file a command reads, valid seeds are mutated: truncations, byte flips, inserted special
bytes (NUL, 0xFF, quotes, brackets, line breaks, a byte-order mark), re-encodings (UTF-16, Latin-1),
gzip (whole, truncated, and a bomb that decompresses past the 256 MiB cap), huge numbers (4,300
digits), deep nesting, very long lines; and every command also gets the endless and special files
(``/dev/zero``, a FIFO with no writer, a directory, a missing file, an empty file, NUL bytes) and
hostile flags (``inf``, ``nan``, ``1e300``, 2^70, negative counts, limits beyond the named ones).

:func:`corpus` returns the full list (over 1,000 cases); :func:`quick` a fast subset for CI.
"""

from __future__ import annotations

import functools
import gzip
import json
import math
import random
import zlib
from pathlib import Path

from tests.fuzz.runner import FIFO, Case

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_trees"

__all__ = ["corpus", "quick", "probe_cases", "COMMANDS"]

HOSTILE_NUMBERS = ["inf", "-inf", "nan", "1e300", "-1", "0", "1180591620717411303424", "1e-300", "abc", ""]


# ------------------------------------------------------------------------------------- mutations

@functools.lru_cache(maxsize=4)
def _bomb(size: int = 300 * 2**20, unit: bytes = b"\0") -> bytes:
    """gzip of ``size`` bytes of ``unit`` repeated (about 300 KB): decompresses past the 256 MiB cap."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = unit * (2**20 // len(unit))
    parts = [z.compress(block) for _ in range(size // 2**20)]
    return b"".join(parts) + z.flush()


_BOMB = None


def bomb() -> bytes:
    global _BOMB
    if _BOMB is None:
        _BOMB = _bomb()
    return _BOMB


SPECIAL = [b"\0", b"\xff", b'"', b"(", b"[", b"{", b"\n", b"\xef\xbb\xbf", b"\r", b"<", b"'", b",", b";",
           b"\xc2\xb2", b"\xe2\x80\xa8", b"9" * 400]


def mutants(data: bytes, rng: random.Random, *, flips: int = 4, inserts: int = 3) -> list[tuple[str, bytes]]:
    """``(what, bytes)`` variants of a valid file."""
    n = len(data)
    out = []
    for frac in (0.0, 1 / 7, 1 / 3, 1 / 2, 2 / 3):
        out.append((f"truncated at {frac:.2f}", data[: int(n * frac)]))
    out.append(("last byte cut", data[:-1]))
    for _ in range(flips):
        b = bytearray(data)
        if b:
            i = rng.randrange(len(b))
            b[i] = rng.randrange(256)
        out.append(("byte flip", bytes(b)))
    for _ in range(inserts):
        i = rng.randrange(n + 1)
        s = rng.choice(SPECIAL)
        out.append((f"insert {s[:8]!r}", data[:i] + s + data[i:]))
    try:
        text = data.decode("utf-8")
        out.append(("UTF-16", text.encode("utf-16")))
        out.append(("Latin-1 + non-ASCII", (text + "é").encode("latin-1", "replace")))
    except UnicodeDecodeError:
        pass
    out.append(("BOM", b"\xef\xbb\xbf" + data))
    gz = gzip.compress(data, mtime=0)
    out.append(("gzip", gz))
    out.append(("gzip truncated", gz[: max(2, len(gz) // 2)]))
    out.append(("doubled", data + data))
    return out


def _long_line() -> bytes:
    return b"a" * 10_000_000


def _specials(ext: str) -> list[tuple[str, object, str]]:
    """``(what, file content, expect)`` of the hostile files every reader gets."""
    deep = {".json": b"[" * 200_000 + b"]" * 200_000, ".jsonl": b'{"children": ' + b"[" * 200_000 + b"]" * 200_000 + b"}\n",
            ".nwk": b"(" * 20_000 + b"a" + b")" * 20_000 + b";", ".xml": b"<a>" * 20_000 + b"</a>" * 20_000,
            ".graphml": b"<graphml>" + b"<x>" * 100_000 + b"</x>" * 100_000 + b"</graphml>",
            ".gml": b"graph [ " + b"a [ " * 100_000 + b"] " * 100_000 + b"]"}
    out = [("empty file", b"", "error"), ("blank lines", b"\n \n\t\n", "error"), ("NUL bytes", b"\0" * 64, "error"),
           ("only a BOM", b"\xef\xbb\xbf", "error"), ("FIFO", FIFO, "error"),
           ("gzip bomb", bomb, "error"), ("10 MB single line", _long_line, "either"),
           ("gzip flood of 200 MiB of blank lines", lambda: _bomb(200 * 2**20, b"\n"), "error"),
           ("random bytes", bytes(random.Random(7).randrange(256) for _ in range(4096)), "either"),
           ("huge number", b"1" * 4300 + b"," + b"2" * 4300 + b"\n", "either")]
    if ext in deep:
        out.append(("deep nesting", deep[ext], "either"))
    return out


# ----------------------------------------------------------------------------------------- checks

def _json_out(out: str):
    try:
        return json.loads(out)
    except ValueError:
        return None


def _finite_numbers(obj, path="") -> str | None:
    if isinstance(obj, float) and not math.isfinite(obj):
        return f"{path} is {obj}"
    if isinstance(obj, dict):
        for k, v in obj.items():
            why = _finite_numbers(v, f"{path}.{k}")
            if why:
                return why
    if isinstance(obj, list):
        for i, v in enumerate(obj[:1000]):
            why = _finite_numbers(v, f"{path}[{i}]")
            if why:
                return why
    return None


def check_info(expected_n=None):
    """``info --json``: consistent counts (and the right size when it is known)."""
    def check(out, folder):
        d = _json_out(out)
        if not isinstance(d, dict):
            return f"not one JSON object: {out[:100]!r}"
        n = d.get("n")
        if not isinstance(n, int) or n < 1 or d.get("edges") != n - 1:
            return f"inconsistent sizes {d}"
        if not (1 <= d.get("leaves", 0) <= n) or d.get("max_degree", -1) > max(n - 1, 0):
            return f"inconsistent shape {d}"
        if expected_n is not None and n != expected_n:
            return f"read {n} vertices, the file has {expected_n}"
        return None
    return check


def check_json(required=()):
    """One JSON object with the required keys and no NaN/inf (written as null) where numbers are due."""
    def check(out, folder):
        lines = [ln for ln in out.splitlines() if ln.strip()]
        if not lines:
            return "no output"
        for ln in lines:
            d = _json_out(ln)
            if d is None:
                return f"not JSON: {ln[:100]!r}"
        d = _json_out(lines[-1])
        for k in required:
            if k not in d or d[k] is None:
                return f"{k!r} missing or null in {lines[-1][:200]}"
        return _finite_numbers(d)
    return check


def check_convert(out, folder):
    from engine.trees import read_tree

    p = Path(folder) / "out.json"
    if not p.exists():
        return "exit 0 but no output file"
    try:
        read_tree(p)
    except Exception as exc:  # noqa: BLE001
        return f"wrote a file that does not read back: {exc}"
    return None


# ----------------------------------------------------------------------------------------- seeds

def _expected_sizes() -> dict[str, int]:
    """Vertex counts of the sample trees from independent readers (networkx, the csv module)."""
    import csv

    import networkx as nx

    sizes = {}
    for p in sorted(SAMPLES.iterdir()):
        ext = p.suffix.lower()
        try:
            if ext in (".csv", ".tsv"):
                rows = [r for r in csv.reader(p.read_text().splitlines(), delimiter="\t" if ext == ".tsv" else ",")
                        if r and not r[0].startswith("#")]
                sizes[p.name] = len({x.strip() for r in rows for x in r})
            elif ext == ".gml":
                sizes[p.name] = nx.read_gml(p, label="id").number_of_nodes()
            elif ext == ".graphml":
                sizes[p.name] = nx.read_graphml(p).number_of_nodes()
            elif ext == ".json":
                sizes[p.name] = len(json.loads(p.read_text())["nodes"])
            elif ext == ".jsonl":
                sizes[p.name] = len(json.loads(p.read_text().splitlines()[0])["children"])
        except Exception:  # noqa: BLE001 - an independent reader that cannot: no exact check
            pass
    return sizes


def _data_csv(rng: random.Random, rows=60, cols=6, m=2) -> bytes:
    return "".join(",".join(str(rng.randrange(m)) for _ in range(cols)) + "\n" for _ in range(rows)).encode()


def _arff(rng: random.Random, rows=40) -> bytes:
    head = ["@relation 'fuzz: -C 3'"] + [f"@attribute L{i} {{0,1}}" for i in range(3)] + \
           [f"@attribute f{i} numeric" for i in range(4)] + ["@data"]
    body = []
    for _ in range(rows):
        labels = [rng.randrange(2) for _ in range(3)]
        if not any(labels):
            labels[0] = 1
        body.append(",".join(map(str, labels + [round(rng.random(), 3) for _ in range(4)])))
    return ("\n".join(head + body) + "\n").encode()


def _positional(rng: random.Random, trees=30) -> bytes:
    lines = []
    for t in range(trees):
        n = rng.randrange(2, 8)
        children = [[-1, -1] for _ in range(n)]
        for v in range(2, n + 1):
            while True:
                p = rng.randrange(1, v)
                free = [i for i, c in enumerate(children[p - 1]) if c == -1]
                if free:
                    children[p - 1][rng.choice(free)] = v
                    break
        lines.append(json.dumps({"y": t % 2, "labels": [rng.randrange(1, 4) for _ in range(n)], "children": children}))
    return ("\n".join(lines) + "\n").encode()


SCENARIO = json.loads((ROOT / "sample_scenarios" / "lecture_evidence.json").read_text())
CONFIG = {"algorithm": "hedge", "tree": {"generate": "path", "n": 6}, "trials": 40, "seed": 0}


# ---------------------------------------------------------------------------------------- corpus

COMMANDS = ("info", "convert", "cover", "marginals", "generate", "replay", "chowliu", "ofde", "hedge", "bhtmm",
            "rta", "run", "runs")


def _file_cases(command, argv_of, name, data, rng, expect_valid="ok", check=None, check_valid=None,
                extra_files=None):
    """The seed itself, its mutants and the special files, as ``command`` cases."""
    ext = "".join(Path(name).suffixes[-1:]).lower()
    extra_files = extra_files or {}
    cases = [Case(command, f"{name}: valid", argv_of(name), {name: data, **extra_files}, expect_valid,
                  check_valid or check)]
    for what, m in mutants(data, rng):
        cases.append(Case(command, f"{name}: {what}", argv_of(name), {name: m, **extra_files}, "either", check))
    for what, m, expect in _specials(ext):
        cases.append(Case(command, f"{name}: {what}", argv_of(name), {name: m, **extra_files}, expect, check))
    return cases


def corpus(seed: int = 0) -> list[Case]:
    rng = random.Random(seed)
    sizes = _expected_sizes()
    cases: list[Case] = []
    samples = sorted(SAMPLES.iterdir())

    # tree files: info (exact sizes where an independent reader knows them), convert, cover, marginals
    for p in samples:
        data = p.read_bytes()
        cases += _file_cases("info", lambda nm: ["info", nm, "--json"], p.name, data, rng,
                             check=check_info(), check_valid=check_info(sizes.get(p.name)))
    for p in samples:
        cases += _file_cases("convert", lambda nm: ["convert", nm, "out.json"], p.name, p.read_bytes(), rng,
                             check=check_convert)
    for p in samples[::2]:
        cases += _file_cases("cover", lambda nm: ["cover", nm, "--json"], p.name, p.read_bytes(), rng,
                             check=check_json(("height",)) if False else check_json())
        cases += _file_cases("marginals", lambda nm: ["marginals", nm], p.name, p.read_bytes(), rng,
                             check=check_json(("log_partition",)))
    for path in ("/dev/zero", "/dev/null", "/proc/self/status", ".", "missing.csv", "/etc"):
        for cmd in ("info", "cover", "marginals"):
            expect = "either" if path == "/proc/self/status" else "error"
            cases.append(Case(cmd, f"path {path}", [cmd, path], {}, expect))
    for states in HOSTILE_NUMBERS + ["200000", "4097"]:
        cases.append(Case("marginals", f"--states {states}", ["marginals", "t.csv", "--states", states],
                          {"t.csv": "a,b\nb,c\n"}, "error"))
    for c in ("inf", "nan", "1e300", "-1e300", "1e-300"):
        cases.append(Case("marginals", f"--coupling {c}", ["marginals", "t.csv", "--coupling", c],
                          {"t.csv": "a,b\nb,c\n"}, "either", check_json(("log_partition",))))
    cases.append(Case("cover", "--root missing", ["cover", "t.csv", "--root", "zz"], {"t.csv": "a,b\n"}, "error"))

    # generate
    for kind in ("path", "star", "random", "recursive", "spider", "caterpillar", "complete", "nope"):
        for n in ("0", "-4", "3", "2000001", "1e3", "abc"):
            good = kind != "nope" and n == "3"
            cases.append(Case("generate", f"{kind} n={n}", ["generate", kind, "--n", n, "out.csv"], {},
                              "ok" if good else "error"))
        for s in ("-1", "1180591620717411303424", "x", "9223372036854775807"):
            cases.append(Case("generate", f"{kind} seed={s}", ["generate", kind, "--n", "5", "--seed", s, "out.csv"],
                              {}, "either" if s == "9223372036854775807" and kind != "nope" else "error"))
    cases.append(Case("generate", "output is a directory", ["generate", "path", "--n", "3", "."], {}, "error"))
    cases.append(Case("generate", "output extension unknown", ["generate", "path", "--n", "3", "x.doc"], {}, "error"))

    # replay: the scenario file mutated, and hostile scenario objects
    scen = json.dumps(SCENARIO, indent=1).encode()
    cases += _file_cases("replay", lambda nm: ["replay", nm], "s.json", scen, rng, check=check_json())
    hostile = [("states 200000", {"states": 200000}), ("states 1e9", {"states": 1e9}), ("states -2", {"states": -2}),
               ("states true", {"states": True}), ("tree /etc/passwd", {"tree": "/etc/passwd"}),
               ("tree /dev/zero", {"tree": "/dev/zero"}), ("tree a FIFO", {"tree": "fifo.csv"}),
               ("generator n abc", {"tree": {"generate": "path", "n": "abc"}}),
               ("generator unknown key", {"tree": {"generate": "path", "n": 4, "foo": 1}}),
               ("generator seed x", {"tree": {"generate": "random", "n": 4, "seed": "x"}}),
               ("generator seed -1", {"tree": {"generate": "random", "n": 4, "seed": -1}}),
               ("generator seed 2^70", {"tree": {"generate": "random", "n": 4, "seed": 2**70}}),
               ("generator n 1e12", {"tree": {"generate": "path", "n": 1e12}}),
               ("three-name edge", {"tree": {"edges": [["1", "2", "3"]]}}),
               ("edge of a dict", {"tree": {"edges": [{"a": 1}]}}),
               ("edges a string", {"tree": {"edges": "1,2"}}),
               ("potential NaN", {"edge_potential": [[1, float("nan")], [1, 1]]}),
               ("potential inf", {"edge_potential": [[1, 1e309], [1, 1]]}),
               ("potential negative", {"edge_potential": [[1, -1], [1, 1]]}),
               ("unknown op", {"ops": [{"explode": "1"}]}),
               ("op on missing vertex", {"ops": [{"marginal": "zz"}]}),
               ("ops not a list", {"ops": "marginal"}),
               ("node data wrong length", {"node_data": {"3": [1, 2, 3]}}),
               ("root missing", {"root": "zz"}),
               ("cover unknown", {"cover": "best"})]
    for what, patch in hostile:
        obj = {**SCENARIO, **patch}
        text = json.dumps(obj, allow_nan=True).replace("1e309", "1e309")
        files = {"s.json": text, "fifo.csv": FIFO}
        cases.append(Case("replay", what, ["replay", "s.json"], files, "error"))
    for digits in (20, 400, 4300, 50_000):
        text = scen.decode().replace('"states": 2', '"states": 2' + "0" * 0 + ", \"x\": " + "9" * digits, 1)
        cases.append(Case("replay", f"number of {digits} digits", ["replay", "s.json"], {"s.json": text}, "error"))
    for depth in (50, 1000, 100_000):
        text = scen.decode().replace('"ops": [', '"ops": [' + "[" * depth + "]" * depth + ",", 1)
        cases.append(Case("replay", f"ops nested {depth} deep", ["replay", "s.json"], {"s.json": text}, "error"))

    # forests: chowliu and ofde over a mutated training file
    train = _data_csv(rng)
    test = _data_csv(rng, rows=20)
    for cmd, extra in (("chowliu", []), ("ofde", ["--eval-points", "3"])):
        cases += _file_cases(cmd, lambda nm, c=cmd, e=extra: [c, "--train", nm, "--test", "test.data", "--json", *e],
                             "train.data", train, rng, check=check_json(("test_loglik",) if cmd == "chowliu" else ()),
                             extra_files={"test.data": test})
    for flag, values in (("--pseudocount", ["inf", "nan", "-1", "0", "1e300", "1e-300", "abc"]),):
        for v in values:
            cases.append(Case("chowliu", f"{flag} {v}", ["chowliu", "--train", "a.data", "--test", "a.data", flag, v,
                                                           "--json"], {"a.data": train}, "either",
                              check_json(("test_loglik",))))
    for flag, values in (("--mixture-size", ["1000000000", "-1", "0", "1e9"]), ("--rounds", ["1000000000000", "-5"]),
                         ("--perturbation-scale", ["inf", "nan", "-1"]), ("--eval-points", ["0", "1", "10000000"]),
                         ("--seed", ["-1", "1180591620717411303424"])):
        for v in values:
            cases.append(Case("ofde", f"{flag} {v}", ["ofde", "--train", "a.data", "--test", "a.data", flag, v, "--json"],
                              {"a.data": train}, "either", check_json()))
    wide = (",".join(["0"] * 20_000) + "\n" + ",".join(["1"] * 20_000) + "\n").encode()
    for what, data in (("20,000 columns", wide), ("code 2^70", b"0,1\n1,1180591620717411303424\n"),
                       ("superscript two", "0,1\n1,\u00b2\n".encode()), ("code 16", b"0,1\n1,16\n"),
                       ("ragged", b"0,1\n1\n"), ("gzip bomb of a,b", lambda: _bomb(unit=b"a,b\n"))):
        cases.append(Case("chowliu", what, ["chowliu", "--train", "x.data", "--test", "x.data"], {"x.data": data},
                          "error"))

    # hedge: loss files and flags
    losses = "".join(f"{rng.randrange(6)},{','.join(str(round(rng.random(), 2)) for _ in range(3))}\n"
                     for _ in range(40)).encode()
    cases += _file_cases("hedge", lambda nm: ["hedge", "--tree", "path:6", "--environment", "file", "--losses", nm,
                                              "--json"], "losses.csv", losses, rng, check=check_json(("bound",)))
    for flag, values in (("--trials", ["1000000000000", "0", "-3", "1e3"]), ("--states", ["1", "200000", "4097"]),
                         ("--eta", ["inf", "nan", "0", "-1", "1e300", "1e-300"]), ("--coupling", ["inf", "nan", "-1", "2"]),
                         ("--low", ["nan", "-1", "2"]), ("--tree", ["random:0", "random:99999999", "/dev/zero", "{",
                                                                     '{"generate": "path", "n": "x"}']),
                         ("--seed", ["-1", "1180591620717411303424"])):
        for v in values:
            argv = ["hedge", "--tree", "path:5", "--trials", "30", "--json"]
            argv = [a for a in argv]
            if flag in argv:
                argv[argv.index(flag) + 1] = v
            else:
                argv += [flag, v]
            cases.append(Case("hedge", f"{flag} {v}", argv, {}, "either", check_json(("bound",))))

    # bhtmm: a mutated JSON-lines training file, and flags
    trees = _positional(rng)
    cases += _file_cases("bhtmm", lambda nm: ["bhtmm", "--train", nm, "--test", "test.jsonl", "--states", "2",
                                              "--iterations", "2", "--json"], "train.jsonl", trees, rng,
                         check=check_json(("accuracy",)), extra_files={"test.jsonl": _positional(rng, 10)})
    for flag, values in (("--phi", ["inf", "nan", "-1", "1e300"]), ("--lmin", ["-1", "99"]), ("--lmax", ["-1", "0"]),
                         ("--states", ["0", "200000"]), ("--pseudocount", ["inf", "nan", "-1"]),
                         ("--iterations", ["-1", "1000000000000"])):
        for v in values:
            cases.append(Case("bhtmm", f"{flag} {v}", ["bhtmm", "--train", "t.jsonl", "--test", "t.jsonl", "--states", "2",
                                                        "--iterations", "2", flag, v, "--json"], {"t.jsonl": trees},
                              "either", check_json(("accuracy",))))
    cases.append(Case("bhtmm", "XML with entities", ["bhtmm", "--train", "d.xml", "--test", "d.xml", "--states", "2"],
                      {"d.xml": '<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>'}, "error"))

    # rta: a mutated ARFF file and a Mulan XML label file
    arff = _arff(rng)
    rta = ["--folds", "2", "--passes", "1", "--trees", "2", "--k", "2", "--C", "1", "--json"]
    cases += _file_cases("rta", lambda nm: ["rta", "--data", nm, *rta], "d.arff", arff, rng,
                         check=check_json())
    cases.append(Case("rta", "label XML with entities", ["rta", "--data", "d.arff", "--labels", "x.xml", *rta],
                      {"d.arff": arff, "x.xml": '<!DOCTYPE x [<!ENTITY e "boom">]><labels xmlns="http://mulan.sourceforge.net/labels"><label name="&e;"/></labels>'},
                      "error"))
    for flag, values in (("--trees", ["0", "-1", "1000000000"]), ("--k", ["0", "1000000000"]), ("--C", ["inf", "nan", "-1"]),
                         ("--folds", ["0", "1", "1000000"])):
        for v in values:
            argv = ["rta", "--data", "d.arff", *rta]
            argv[argv.index(flag) + 1] = v
            cases.append(Case("rta", f"{flag} {v}", argv, {"d.arff": arff}, "either", check_json()))

    # run: a mutated config, and hostile configs
    cfg = json.dumps(CONFIG).encode()
    cases += _file_cases("run", lambda nm: ["run", nm, "--json", "--quiet"], "c.json", cfg, rng, check=check_json())
    for what, patch in (("trials 1e12", {"trials": 1e12}), ("states 200000", {"states": 200000}),
                        ("seed -1", {"seed": -1}), ("seed 2^70", {"seed": 2**70}), ("seed x", {"seed": "x"}),
                        ("tree /etc/passwd", {"tree": "/etc/passwd"}), ("tree /dev/zero", {"tree": "/dev/zero"}),
                        ("unknown key", {"bogus": 1}), ("algorithm unknown", {"algorithm": "nope"}),
                        ("grid 10^4 x 10^4", {"sweep": {"seed": list(range(10_000)), "trials": list(range(1, 10_001))}}),
                        ("sweep not a dict", {"sweep": [1, 2]}), ("eta inf", {"eta": 1e309})):
        text = json.dumps({**CONFIG, **patch})
        cases.append(Case("run", what, ["run", "c.json", "--quiet"], {"c.json": text}, "error"))

    # runs: ids, limits, a damaged history
    for argv, expect in ((["runs", "list", "--limit", "100000000000000000000"], "either"),
                         (["runs", "list", "--limit", "1e20"], "error"), (["runs", "list", "--limit", "-1"], "error"),
                         (["runs", "show", "1000000000000000000000"], "error"), (["runs", "show", "1e21"], "error"),
                         (["runs", "show", "-1"], "error"), (["runs", "show", "0"], "error"),
                         (["runs", "delete", "99"], "error"), (["runs", "export", "1", "-o", "."], "error"),
                         (["runs", "list", "--since", "yesterday"], "error"), (["runs", "list", "--db", "/dev/zero"], "error"),
                         (["runs", "list", "--db", "notadb.sqlite"], "error"), (["runs", "list"], "either")):
        files = {"notadb.sqlite": b"this is not a database" * 10}
        cases.append(Case("runs", " ".join(argv[1:]), argv, files, expect))
    cases += _damaged_history_cases()
    cases += probe_cases()
    return cases


# ------------------------------------------------------------------ what an outside probe found

PROBE_TREES = _positional(random.Random(3), trees=8)


def probe_cases() -> list[Case]:
    """The nine inputs of an outside probe that took minutes or gigabytes, or were read wrongly.

    Each must answer in about a second with a few hundred MB at most (``benchmarks/bench_hostile.py``
    measures them in their own processes); item 9 (the first call on a fresh clone) needs an empty
    kernel cache, so it is measured there, not here.
    """
    name10 = lambda: b"a," + b"x" * 10_000_000 + b"\n"  # noqa: E731 - made when the case runs
    nwk10 = lambda: b"(a," + b"x" * 10_000_000 + b");\n"  # noqa: E731
    newlines = lambda: _bomb(512 * 2**20, b"\n")  # noqa: E731 - about 500 KB of gzip
    repeated = lambda: _bomb(60 * 2**20, b"a,b\n")  # noqa: E731
    bh = ["--states", "2", "--iterations", "2", "--json"]
    return [
        Case("info", "probe 1: 10 MB vertex name (edge list)", ["info", "long.csv", "--json"], {"long.csv": name10},
             "ok", check_info(2)),
        Case("info", "probe 1: 10 MB vertex name (Newick)", ["info", "long.nwk", "--json"], {"long.nwk": nwk10},
             "ok", check_info(3)),
        Case("rta", "probe 2: synthetic data with 100,000 labels", ["rta", "--data", "synthetic", "--labels", "100000",
                                                                     "--json"], {}, "error", says=("labels",)),
        Case("run", "probe 3: chowliu config with n_vars 100,000", ["run", "c.json", "--quiet"],
             {"c.json": json.dumps({"algorithm": "chowliu", "n_vars": 100_000, "n_train": 100, "n_test": 10})},
             "error", says=("n_vars",)),
        Case("bhtmm", "probe 4: gzip of 512 MiB of newlines", ["bhtmm", "--train", "nl.jsonl.gz", "--test", "t.jsonl", *bh],
             {"nl.jsonl.gz": newlines, "t.jsonl": PROBE_TREES}, "error", says=("bytes",)),
        Case("info", "probe 5: gzip of 60 MiB repeating a,b", ["info", "ab.csv.gz"], {"ab.csv.gz": repeated}, "error",
             says=("line 2", "more than once")),
        Case("bhtmm", "probe 6: labels [true, 3, 2]", ["bhtmm", "--train", "b.jsonl", "--test", "t.jsonl", *bh],
             {"b.jsonl": b'{"y": 0, "labels": [true, 3, 2], "children": [[2, 3], [-1, -1], [-1, -1]]}\n',
              "t.jsonl": PROBE_TREES}, "error", says=("true",)),
        Case("bhtmm", "probe 7: SP-BHTMM with --lmin 99", ["bhtmm", "--train", "t.jsonl", "--test", "t.jsonl", "--model",
                                                           "sp", "--lmin", "99", *bh],
             {"t.jsonl": PROBE_TREES}, "error", says=("lmin=99 is out of range", "0..2")),
        Case("info", "probe 8: vertical tab and form feed in an edge list", ["info", "vt.csv"],
             {"vt.csv": b"a\x01,b\x0b\nb\x0c,c\x7f"}, "error", says=("line 1", "vertical tab")),
    ]


def _damaged_history_cases() -> list[Case]:
    """A history with non-UTF-8 and invalid JSON in its columns still lists and shows."""
    import sqlite3
    import tempfile

    from engine.runs.store import RunStore

    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "h.sqlite"
        with RunStore(db) as store:
            rid = store.start({"algorithm": "hedge", "seed": 0})
            store.end(rid, "failed", "boom")
        c = sqlite3.connect(db)
        c.execute("PRAGMA journal_mode=DELETE")
        c.execute("UPDATE runs SET metrics = '{not json', label = CAST(X'FFFE' AS TEXT), config = X'FF7B'")
        c.commit()
        c.close()
        data = db.read_bytes()
    out = []
    for argv in (["runs", "list", "--db", "h.sqlite"], ["runs", "list", "--json", "--db", "h.sqlite"],
                 ["runs", "show", "1", "--db", "h.sqlite"], ["runs", "show", "1", "--json", "--db", "h.sqlite"],
                 ["runs", "export", "1", "--db", "h.sqlite"]):
        out.append(Case("runs", "damaged history: " + " ".join(argv[1:3]), argv, {"h.sqlite": data}, "ok"))
    return out


def quick(seed: int = 0, every: int = 12) -> list[Case]:
    """A fast subset for the normal test suite: every ``every``-th case plus all specials, no bombs."""
    cases = corpus(seed)
    keep = []
    for i, c in enumerate(cases):
        special = any(w in c.name for w in ("FIFO", "NUL", "deep", "/dev/zero", "damaged", "seed", "states"))
        if c.name.startswith("probe "):  # the outside probe's inputs: each answers in about a second
            keep.append(c)
            continue
        if "bomb" in c.name or "10 MB" in c.name or "flood" in c.name:
            continue
        if special and i % 3 == 0 or i % every == 0:
            keep.append(c)
    return keep
