"""Aggregating raw grades per (item, system): M-MSR, mean and majority vote.

M-MSR (Matrix Mean-Subsequence-Reduced; Ma & Olshevsky, "Adversarial Crowdsourcing Through
Robust Rank-One Matrix Completion", NeurIPS 2020) estimates one skill per grader from the
graders' agreement matrix by robust rank-one matrix completion and then takes a
skill-weighted vote. This implementation follows the defaults of crowd-kit's ``MMSR``
(``n_iter=10000``, ``tol=1e-10``, ``random_state=0``), which the Out of the BLEU study used,
so it reproduces that study's aggregated grades. Grades are treated as nominal labels, as in
crowd-kit: the vote picks a label that some grader gave.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

AGGREGATIONS = ("mmsr", "mean", "majority")


def _labels_and_workers(tasks: Sequence[dict]) -> tuple[list, list[str]]:
    labels: dict = {}
    workers: dict = {}
    for grades in tasks:
        for worker, label in grades.items():
            labels.setdefault(label, None)
            workers.setdefault(worker, None)
    return list(labels), list(workers)


def _trimmed(values: np.ndarray, trim: int, anchor: float, n_tasks: int) -> np.ndarray:
    """Drop up to ``trim`` values below and above ``anchor`` (the MSR step)."""
    y = np.sort(values)
    y = y[y >= anchor] if np.sum(y < anchor) < trim else y[trim:]
    m = len(y)
    y = y[y <= anchor] if np.sum(y > anchor) < trim else y[: m - trim]
    if len(y) == 1 and y[0] == 0:
        y = np.array([1 / np.sqrt(n_tasks)])
    return y


def _sign_vector(cov: np.ndarray, magnitudes: np.ndarray) -> np.ndarray:
    """Signs of the skills from the sign pattern of the agreement matrix."""
    signs = np.sign(cov)
    n = len(magnitudes)
    valid = np.where(np.sum(cov, axis=1) != 0)[0]
    s_valid = signs[np.ix_(valid, valid)]
    k = len(valid)
    rows, cols = np.where(s_valid * np.triu(np.ones((k, k))) == 1)
    s_valid = np.where(s_valid == 1, 0.0, s_valid)
    eye = np.eye(k)
    incidence = eye[rows, :] + eye[cols, :]
    m = incidence.shape[0]
    graph = np.vstack(
        (
            np.hstack((np.abs(s_valid), incidence.T)),
            np.hstack((incidence, np.zeros((m, m)))),
        )
    )
    with np.errstate(divide="ignore", invalid="ignore"):
        walk = graph / graph.sum(axis=1, keepdims=True)
    walk = np.nan_to_num(walk) + np.eye(graph.shape[0])
    values, vectors = np.linalg.eig(walk)
    vector = vectors[:, int(np.argmin(np.abs(values)))].real
    sign = np.sign(vector)
    result = np.zeros(n)
    result[valid] = np.sign(np.sum(sign[:k])) * magnitudes[valid] * sign[:k]
    return result


def _uniform(size: tuple[int, int], random_state: int | None) -> np.ndarray:
    if random_state is None:
        return np.random.uniform(0.0, 1.0, size=size)
    return np.random.RandomState(random_state).uniform(0.0, 1.0, size=size)


def mmsr_skills(
    tasks: Sequence[dict],
    n_iter: int = 10000,
    tol: float = 1e-10,
    random_state: int | None = 0,
) -> tuple[dict[str, float], list]:
    """Grader skills (log-odds weights) by M-MSR, and the label set in order of appearance."""
    labels, workers = _labels_and_workers(tasks)
    n_labels, n_workers, n_tasks = len(labels), len(workers), len(tasks)
    if n_labels < 2:
        return {worker: 1.0 for worker in workers}, labels
    label_code = {label: code for code, label in enumerate(labels, start=1)}
    worker_index = {worker: index for index, worker in enumerate(workers)}
    observed = np.zeros((n_workers, n_tasks))
    for task, grades in enumerate(tasks):
        for worker, label in grades.items():
            observed[worker_index[worker], task] = label_code[label]
    present = np.sign(observed)
    common = present @ present.T
    np.fill_diagonal(common, 0)
    sparsity = np.min(np.sign(common).sum(axis=0))
    trim = int(np.floor(sparsity / 2)) - 1
    cov = np.zeros((n_workers, n_workers))
    for i in range(n_workers):
        for j in range(n_workers):
            if common[i, j]:
                same = (observed[i] == observed[j]) * present[i] * present[j]
                cov[i, j] = np.sum(same) / common[i, j]
    cov = cov * (n_labels / (n_labels - 1)) - 1 / (n_labels - 1)

    # crowd-kit's draws: scipy.stats.uniform.rvs(size, random_state=seed), which is numpy's
    # legacy RandomState(seed).uniform(0, 1, size)
    u = _uniform((n_workers, 1), random_state)
    v = _uniform((n_workers, 1), random_state)
    linked = np.abs(np.sign(common)) == 1
    magnitude = np.abs(cov)
    for _ in range(n_iter):
        u_prev, v_prev = u.copy(), v.copy()
        for j in range(n_workers):
            y = _trimmed(magnitude[linked[:, j], j] / u[linked[:, j], 0], trim, v[j, 0], n_tasks)
            if len(y):
                v[j, 0] = y.mean()
        for i in range(n_workers):
            y = _trimmed(magnitude[i, linked[i, :]] / v[linked[i, :], 0], trim, u[i, 0], n_tasks)
            if len(y):
                u[i, 0] = y.mean()
        if np.linalg.norm(u @ v.T - u_prev @ v_prev.T, ord="fro") < tol:
            break
    scale = np.sqrt(np.linalg.norm(u) / np.linalg.norm(v))
    skill = _sign_vector(cov, (u / scale).ravel())
    skill = np.minimum(skill, 1 - 1.0 / np.sqrt(n_tasks))
    skill = np.maximum(skill, -1 / (n_labels - 1) + 1.0 / np.sqrt(n_tasks))
    probability = skill * (n_labels - 1) / n_labels + 1 / n_labels
    weights = np.log(probability * (n_labels - 1) / (1 - probability))
    return {worker: float(weights[index]) for worker, index in worker_index.items()}, labels


def _weighted_vote(tasks: Sequence[dict], weights: dict[str, float] | None) -> np.ndarray:
    """Per task the label with the largest (weighted) vote share; ties go to the smallest label."""
    labels = sorted({label for grades in tasks for label in grades.values()})
    column = {label: index for index, label in enumerate(labels)}
    scores = np.zeros((len(tasks), len(labels)))
    for task, grades in enumerate(tasks):
        for worker, label in grades.items():
            scores[task, column[label]] += 1.0 if weights is None else weights[worker]
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = scores / scores.sum(axis=1, keepdims=True)
    best = np.argmax(np.nan_to_num(shares, nan=-np.inf), axis=1)
    return np.asarray(labels, dtype=np.float64)[best]


def mmsr(tasks: Sequence[dict], n_iter: int = 10000, tol: float = 1e-10,
         random_state: int | None = 0) -> np.ndarray:
    """M-MSR aggregated grade of every task (``tasks``: one ``{grader: grade}`` per task).

    >>> mmsr([{"a": 1, "b": 1, "c": 0}, {"a": 0, "b": 0, "c": 0}, {"a": 1, "b": 0, "c": 1}])
    array([1., 0., 1.])
    """
    weights, _ = mmsr_skills(tasks, n_iter=n_iter, tol=tol, random_state=random_state)
    return _weighted_vote(tasks, weights)


def majority_vote(tasks: Sequence[dict]) -> np.ndarray:
    """The most frequent grade of every task; ties go to the smallest grade."""
    return _weighted_vote(tasks, None)


def mean_grade(tasks: Sequence[dict]) -> np.ndarray:
    """The mean grade of every task."""
    return np.array([np.mean(list(grades.values())) for grades in tasks], dtype=np.float64)


def aggregate(tasks: Sequence[dict], method: str = "mmsr") -> np.ndarray:
    """Aggregate raw grades with ``method`` (one of ``mmsr``, ``mean``, ``majority``)."""
    if method == "mmsr":
        return mmsr(tasks)
    if method == "mean":
        return mean_grade(tasks)
    if method == "majority":
        return majority_vote(tasks)
    raise ValueError(f"aggregate={method!r} is not supported; choose one of "
                     f"{', '.join(AGGREGATIONS)}.")
