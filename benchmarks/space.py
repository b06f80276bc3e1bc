"""Time the Space's requests at its advertised limits against its 2-second budget.

Every case is a request the Space accepts (5,000 characters a snippet, 4 candidates; uploads
of 5 systems x 500 items x 4,990 characters) built to be slow: long flat code, deep nesting,
many blocks. Each case runs in a fresh process (so no warm cache flatters it) after one
small warm-up request that loads the parsers, as a running Space has; a case that takes
longer than ``--cap`` seconds is stopped and reported as over the cap. A request may also be
answered with the Space's polite "too large for the Space, use `cgm`" message: that is an
answer, and the table says so.

    python benchmarks/space.py            # all cases
    python benchmarks/space.py --cap 60 --only diff

The machine this runs on may be busy: the diff cases have a peer, difflib's token diff (the
Space's diff before it went line-first), run on the same pair in the same way (a fresh
process, the same warm-up, one run each), so the ratio is what to compare; the scoring and
upload cases have no peer (no other tool answers these requests) and are read against the
2-second budget.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUDGET = 2.0


# ---------------------------------------------------------------- the worst cases


def fit(text: str, limit: int = 5_000) -> str:
    """``text`` cut at the last line end before ``limit`` characters."""
    if len(text) <= limit:
        return text
    return text[: text.rfind("\n", 0, limit)]


def flat_python(variant: int = 0) -> str:
    return fit("".join(f"v{i} = w{i} * {i + variant} + f(x{i})\n" for i in range(400)))


def deep_parentheses(variant: int = 0) -> str:
    depth = 2_400 - variant
    return "x = " + "(" * depth + f"a + {variant}" + ")" * depth


def java_blocks(variant: int = 0, limit: int = 5_000) -> str:
    body = "".join(f"if (x{i} > {variant}) {{ y += {i}; }}\n" for i in range(300))
    return fit("class A {\n void f() {\n" + body, limit - 5) + "\n}\n}"


def javascript_statements(variant: int = 0) -> str:
    return fit("".join(f"let v{i} = {i + variant};\n" for i in range(600)))


SNIPPETS = {"flat_python": ("python", flat_python), "deep_parentheses": ("python",
            deep_parentheses), "java_blocks": ("java", java_blocks),
            "javascript": ("javascript", javascript_statements)}


def upload_files(folder: Path, n_systems: int = 5, n_items: int = 500,
                 chars: int = 3_990) -> tuple[Path, list[Path]]:
    """A references file and ``n_systems`` system files at the upload limits (plain text,
    one item per line), with file names that once broke the Space: ``$`` (matplotlib
    mathtext) and two uploads both called ``model.txt``."""
    def item(seed: int, index: int) -> str:
        words = [f"v{(index * 7 + k * (seed + 3)) % 97} = f(x{k})" for k in range(chars)]
        return "; ".join(words)[:chars]

    folder.mkdir(parents=True, exist_ok=True)
    refs = folder / "references.txt"
    refs.write_text("".join(item(0, i) + "\n" for i in range(n_items)))
    names = ["sys_$\\frac$.txt", "a/model.txt", "b/model.txt", "base.txt", "other.txt"]
    systems = []
    for seed, name in enumerate(names[:n_systems], start=1):
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(item(seed if i % 3 else 0, i) + "\n" for i in range(n_items)))
        systems.append(path)
    return refs, systems


# ---------------------------------------------------------------- timing in a fresh process

RUNNER = textwrap.dedent('''
    import json, sys, time
    sys.path.insert(0, {benchmarks!r})
    import space as cases
    from cgm_metrics import space
    kind, name, arg = sys.argv[1], sys.argv[2], sys.argv[3]
    lang = cases.SNIPPETS[name][0] if name in cases.SNIPPETS else "python"
    # warm-up, as a running Space has done: parsers (and WordNet) loaded
    space.side_by_side("x = 1", ["x = 2", "x = 1"], lang)
    status = "answered"
    if kind == "uploads":
        from pathlib import Path
        refs, systems = cases.upload_files(Path(arg))
    start = time.perf_counter()
    try:
        if kind == "diff":
            lang, make = cases.SNIPPETS[name]
            space.diff_html(make(0), make(1), "A")
        elif kind == "peer-diff":
            import difflib
            lang, make = cases.SNIPPETS[name]
            tokens = space._TOKEN.findall
            difflib.SequenceMatcher(None, tokens(make(0)), tokens(make(1)),
                                    autojunk=False).get_opcodes()
        elif kind == "side":
            lang, make = cases.SNIPPETS[name]
            candidates = [make(v) for v in range(1, int(arg) + 1)]
            result = space.side_by_side(make(0), candidates, lang)
            for c in result["candidates"]:
                space.diff_html(make(0), c["code"], c["label"])
            space.side_by_side_html(result)
            if result["skipped"]:
                status = "answered; skipped " + ", ".join(sorted(result["skipped"]))
        elif kind == "uploads":
            result = space.compare_uploads(refs, systems, "python", name.split(","))
            space.systems_html(result)
            space.plot_differences(result)
    except space.SpaceInputError as error:
        status = "polite refusal: " + str(error)[:80]
    print(json.dumps({{"seconds": time.perf_counter() - start, "status": status}}))
''')


def run_case(kind: str, name: str, arg: str, cap: float) -> dict:
    code = RUNNER.format(benchmarks=str(Path(__file__).resolve().parent))
    try:
        done = subprocess.run([sys.executable, "-c", code, kind, name, arg], capture_output=True,
                              text=True, timeout=cap + 60)
    except subprocess.TimeoutExpired:
        return {"seconds": None, "status": f"over the cap ({cap:.0f} s + start-up)"}
    if done.returncode != 0:
        return {"seconds": None, "status": "failed: " + done.stderr.strip().splitlines()[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cap", type=float, default=120.0)
    parser.add_argument("--only", default="", help="run only cases whose name contains this")
    args = parser.parse_args()
    cases = []
    for name in SNIPPETS:
        cases.append(("diff", name, "", f"diff_html {name}"))
        cases.append(("peer-diff", name, "", f"difflib tokens {name} (peer)"))
        cases.append(("side", name, "2", f"side_by_side {name}, 2 candidates"))
        cases.append(("side", name, "4", f"side_by_side {name}, 4 candidates"))
    with tempfile.TemporaryDirectory() as folder:
        for metrics in ("chrf_code,codebleu,ruby", "chrf_code", "bleu,rouge_l,meteor,edit_sim"):
            cases.append(("uploads", metrics, folder, f"compare_uploads 5x500x3990 {metrics}"))
        print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on "
              f"{os.cpu_count()} CPUs")
        print(f"{'case':60s} {'seconds':>8s}  status (budget {BUDGET:g} s)")
        for kind, name, arg, label in cases:
            if args.only and args.only not in label:
                continue
            result = run_case(kind, name, arg, args.cap)
            seconds = "-" if result["seconds"] is None else f"{result['seconds']:.3f}"
            print(f"{label:60s} {seconds:>8s}  {result['status']}", flush=True)


if __name__ == "__main__":
    main()
