"""pass@k with the unbiased estimator of Chen et al. (2021), "Evaluating Large Language
Models Trained on Code".

For a task with ``n`` samples of which ``c`` pass, the probability that at least one of
``k`` samples drawn without replacement passes is ``1 - C(n - c, k) / C(n, k)``. The ratio
of binomials is evaluated as the product ``prod_{i = n - c + 1}^{n} (1 - k / i)``, which stays
finite for any ``n`` (the binomials themselves overflow floats beyond a few hundred).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def pass_at_k_per_task(
    num_samples: Sequence[int] | np.ndarray, num_correct: Sequence[int] | np.ndarray, k: int
) -> np.ndarray:
    """The unbiased pass@k estimate of every task, shape ``(n_tasks,)``.

    >>> pass_at_k_per_task([2, 5], [1, 0], 1).tolist()
    [0.5, 0.0]
    """
    samples = _as_counts(num_samples, "num_samples")
    correct = _as_counts(num_correct, "num_correct")
    if samples.shape != correct.shape:
        raise ValueError(
            f"`num_samples` has {samples.size} tasks but `num_correct` has {correct.size}; "
            "give one count of each per task."
        )
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"`k` must be a positive integer, got {k!r}.")
    k = int(k)
    for task, (n, c) in enumerate(zip(samples.tolist(), correct.tolist(), strict=True)):
        if c > n:
            raise ValueError(
                f"task {task} has {c} correct samples out of {n}; `num_correct` cannot exceed "
                "`num_samples`."
            )
        if n < k:
            raise ValueError(
                f"pass@{k} needs at least {k} samples per task, but task {task} has {n}; use a "
                f"smaller k or more samples (evaluate's code_eval silently drops such k)."
            )
    result = np.ones(samples.size, dtype=np.float64)
    for task, (n, c) in enumerate(zip(samples.tolist(), correct.tolist(), strict=True)):
        if n - c >= k:  # otherwise every draw of k samples contains a correct one
            result[task] = 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))
    return result


def pass_at_k(num_samples: Sequence[int], num_correct: Sequence[int], k: int) -> float:
    """The mean over tasks of the unbiased pass@k estimate.

    >>> pass_at_k([2], [1], 1), pass_at_k([2], [1], 2)
    (0.5, 1.0)
    """
    return float(pass_at_k_per_task(num_samples, num_correct, k).mean())


def _as_counts(values: Sequence[int] | np.ndarray, argument: str) -> np.ndarray:
    array = np.asarray(values)
    if array.ndim != 1 or array.size == 0:
        raise ValueError(f"`{argument}` must be a non-empty list of counts, one per task.")
    if not (np.issubdtype(array.dtype, np.integer) or np.issubdtype(array.dtype, np.bool_)):
        if not np.issubdtype(array.dtype, np.floating) or not np.all(array == np.round(array)):
            raise TypeError(f"`{argument}` must hold whole numbers, got {values!r}.")
    array = array.astype(np.int64)
    if np.any(array < 0):
        raise ValueError(f"`{argument}` must not be negative, got {values!r}.")
    return array
