"""The list of metrics and languages in README.md and docs/index.md, generated from the registry.

    python scripts/docs_registry.py           # rewrite the marked blocks
    python scripts/docs_registry.py --check   # exit 1 when a block is not what the registry says

The block sits between ``<!-- registry:start -->`` and ``<!-- registry:end -->``; everything
in it comes from ``cgm_metrics``: the built-in metrics (``describe_metrics``: name, display
name, scale, languages, whether it runs code, one-line description), the evaluate modules
shipped under ``metrics/`` (``module_paths``), the built-in parsing languages and the
execution languages (the execution language table). Only the link from a metric to its page of
the documentation is written here, in ``PAGES``: a new metric without one is an error.
``tests/test_docs_registry.py`` fails when a block is stale.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START, END = "<!-- registry:start -->", "<!-- registry:end -->"
#: the files holding the block, and the prefix of links from each to the docs/ pages
TARGETS = {ROOT / "README.md": "docs/", ROOT / "docs" / "index.md": ""}
#: the page of the documentation that explains each metric (and each evaluate-only module)
PAGES = {
    "bleu": "metrics/classic.md", "rouge_l": "metrics/classic.md",
    "rouge_n": "metrics/classic.md", "rouge_w": "metrics/classic.md",
    "meteor": "metrics/classic.md", "chrf_code": "metrics/chrf.md",
    "codebleu": "metrics/codebleu.md", "ruby": "metrics/ruby.md",
    "edit_sim": "metrics/edit-sim.md", "codexglue_edit_sim": "metrics/edit-sim.md",
    "combined": "metrics/edit-sim.md", "tsed": "metrics/tsed.md",
    "crystal_bleu": "metrics/crystal-bleu.md", "pass@k": "pass-at-k.md",
    "code_eval": "execution.md", "paired_significance": "significance.md",
    "tests_passed": "io-problems.md",
}


def _scale(value: float) -> str:
    return "0-100" if value == 100 else "0-1" if value == 1 else f"0-{value:g}"


def block(prefix: str) -> str:
    """The generated block (without its markers), with links to the pages under ``prefix``."""
    import re

    from cgm_metrics.evaluation import describe_metrics
    from cgm_metrics.execution.languages import execution_languages, get_language
    from cgm_metrics.languages import builtin_names
    from cgm_metrics.loading import module_paths

    parsing = sorted(builtin_names("parsing"))  # the built-in ones: no plugin is listed
    executed = [get_language(name) for name in execution_languages()]
    modules = module_paths()
    rows = []
    families = set()
    for described in describe_metrics():
        if described["plugin"]:
            continue
        name = described["name"]
        if re.fullmatch(r"pass@\d+", name):  # one row for the family
            if "pass@k" in families:
                continue
            families.add("pass@k")
            name, display = "pass@k", "pass@k"
            description = (described["description"].split(",")[0]
                           + " (any k: `pass@1`, `pass@10`, ...).")
        else:
            display = described["display_name"]
            description = described["description"]
        if name not in PAGES:
            raise SystemExit(f"scripts/docs_registry.py: metric {name!r} has no page in PAGES")
        if described["runs_code"]:
            languages = "the execution languages; runs the code"
        elif described["languages"] is None:
            languages = "any"
        elif set(described["languages"]) == set(parsing):
            languages = f"all {len(parsing)}"
        else:
            languages = ", ".join(described["languages"])
        module = f"`cgm/{name}`" if name in modules else "-"
        description = description.strip().rstrip(".").replace("|", "\\|")
        rows.append(f"| [`{name}`]({prefix}{PAGES[name]}) | {display} | {description} | "
                     f"{_scale(described['scale'])} | {languages} | {module} |")
    others = [name for name in modules if name not in {row.split("`")[1] for row in rows}]
    for name in others:
        if name not in PAGES:
            raise SystemExit(f"scripts/docs_registry.py: module {name!r} has no page in PAGES")
    execution = ", ".join(f"{spec.display_name} (`{spec.name}`)" for spec in executed)
    lines = [
        "| metric | name | what it measures | scale | languages | evaluate module |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        "Evaluate modules that are not registry metrics: "
        + ", ".join(f"[`cgm/{name}`]({prefix}{PAGES[name]})" for name in others) + ".",
        "",
        f"Languages of the similarity metrics (`lang=`, {len(parsing)}): "
        + ", ".join(f"`{name}`" for name in parsing) + ".",
        "",
        f"Execution languages of `code_eval`, pass@k and COMBINED ({len(executed)}): "
        + execution + ".",
    ]
    return "\n".join(lines)


def rewrite(text: str, prefix: str) -> str:
    """``text`` with its marked block regenerated."""
    if text.count(START) != 1 or text.count(END) != 1:
        raise SystemExit(f"the file needs one {START} and one {END}")
    head, rest = text.split(START)
    _, tail = rest.split(END)
    return f"{head}{START}\n{block(prefix)}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1, naming the files, when a block is stale; write nothing")
    args = parser.parse_args(argv)
    stale = []
    for path, prefix in TARGETS.items():
        text = path.read_text(encoding="utf-8")
        fresh = rewrite(text, prefix)
        if fresh != text:
            stale.append(path)
            if not args.check:
                path.write_text(fresh, encoding="utf-8")
    if args.check and stale:
        names = ", ".join(str(path.relative_to(ROOT)) for path in stale)
        print(f"stale registry block in {names}: run python scripts/docs_registry.py",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
