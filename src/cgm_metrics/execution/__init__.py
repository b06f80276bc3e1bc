"""Running generated code: the sandbox (every program in its own process, user, file system
view and limits), evaluate's ``code_eval`` on it, and the unbiased pass@k estimator (a chat
answer's code: :mod:`cgm_metrics.execution.extract`)."""

from ..maths.passk import pass_at_k, pass_at_k_per_task

__all__ = ["pass_at_k", "pass_at_k_per_task"]
