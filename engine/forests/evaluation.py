"""Evaluation of online forest learners ("Online Forest Density Estimation", Koriche, section 6): the average
test log-likelihood of the current mixture at log-spaced rounds, the time of each round, and the
structural Hamming distance to the Chow-Liu tree.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from engine.errors import InvalidParameterError
from engine.runs.protocol import no_progress

__all__ = ["log_spaced_rounds", "structural_hamming", "OnlineTrace", "evaluate_online"]


def log_spaced_rounds(T: int, points: int = 40) -> np.ndarray:
    """About ``points`` distinct rounds from 1 to ``T`` evenly spaced on a log axis (both ends in)."""
    if T < 1:
        raise InvalidParameterError(f"the number of rounds must be at least 1, got {T}")
    if points < 2:
        raise InvalidParameterError(f"need at least 2 evaluation points, got {points}")
    return np.unique(np.round(np.geomspace(1, T, points)).astype(np.int64))


def _edge_set(edges) -> set:
    return {(min(int(a), int(b)), max(int(a), int(b))) for a, b in np.asarray(edges).reshape(-1, 2)}


def structural_hamming(edges_a, edges_b) -> int:
    """Number of undirected edges in exactly one of the two graphs."""
    return len(_edge_set(edges_a) ^ _edge_set(edges_b))


@dataclass(frozen=True)
class OnlineTrace:
    """What :func:`evaluate_online` measured.

    rounds : (P,) rounds after which the learner was evaluated.
    test_loglik : (P,) average test log-likelihood (nats) of the mixture after those rounds.
    shd : (P,) structural Hamming distance of the heaviest component to the reference edges.
    round_seconds : (T,) wall time of every round (learning only, evaluation excluded).
    online_loss : (P,) average log-loss of the played forests over rounds 1..t.
    """

    rounds: np.ndarray
    test_loglik: np.ndarray
    shd: np.ndarray
    round_seconds: np.ndarray
    online_loss: np.ndarray


def evaluate_online(learner, X_train: np.ndarray, X_test: np.ndarray, *, rounds: int | None = None,
                    points: int = 40, reference_edges=None, progress=no_progress) -> OnlineTrace:
    """Feed ``rounds`` samples (cycling through ``X_train``; default one pass) to ``learner`` and
    evaluate it on ``X_test`` at log-spaced rounds. ``progress(fraction, message)`` is called about
    a hundred times and may raise :class:`~engine.runs.protocol.RunCancelled`."""
    from engine import limits

    T = len(X_train) if rounds is None else limits.check_count("rounds", rounds, "rounds", minimum=1)
    limits.check_count("eval_points", points, "evaluation points", minimum=2)
    if len(X_train) == 0:
        raise InvalidParameterError("the training sample is empty")
    X = learner._prepare(X_train)  # (N, n) int64 codes, checked once; the learner started on them
    N = len(X)
    evals = log_spaced_rounds(T, points)
    ref = None if reference_edges is None else np.asarray(reference_edges)
    times = np.empty(T)
    out_ll, out_shd, out_online = [], [], []
    tick = max(1, T // 100)
    nxt = 0
    learn = learner._learn  # validated above
    clock = time.perf_counter
    for t in range(T):
        start = clock()
        learn(X[t % N])
        times[t] = clock() - start
        if t + 1 == evals[nxt]:
            out_ll.append(learner.score(X_test))
            out_shd.append(structural_hamming(learner.current_forest(), ref) if ref is not None else -1)
            out_online.append(learner.online_loss_ / (t + 1))
            nxt += 1
        if (t + 1) % tick == 0:
            progress((t + 1) / T, f"round {t + 1:,} of {T:,}")
    return OnlineTrace(evals, np.array(out_ll), np.array(out_shd, dtype=np.int64), times, np.array(out_online))
