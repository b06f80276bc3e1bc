"""Time the Space's requests, and measure the cost model that decides which metrics run.

Four parts (all by default; ``--only PART`` for one):

* ``limits``: requests the Space accepts, at its advertised limits and built to be slow (5,000
  characters a snippet, 4 candidates; uploads of 5 systems x 500 items x 3,990 characters:
  long flat code, deep nesting, many blocks), each in a fresh process after one warm-up
  request, as a running Space has had; a case over ``--cap`` seconds is stopped. The polite
  "too large for the Space, use `cgm`" answer is an answer, and the table says so. The peer
  column times difflib's token diff (the Space's diff before it went line-first).
* ``calibrate``: each metric's CPU seconds per 1,000 characters on real code, the first 100
  pairs of each of the ten languages of tests/data/codebleu (the median of ``--repeat``
  runs); the slowest language is the Space's typical rate
  (``cgm_metrics.frontends.space.limits.TYPICAL_SECONDS_PER_1K_CHARS``, rounded up).
* ``model``: the plan's estimates next to measured CPU seconds, per metric, on side-by-side
  requests (2 to 4 candidates of real code; 4 candidates at the 5,000-character limit) and on
  3 x 100 comparisons of real code (several windows), significance tests included; the ratio
  measured / estimated should stay below 1 on real code.
* ``agreement``: agreement uploads at the limits (10 systems x 500 items of real code, text
  only, and with scores), in a fresh process: seconds, CPU and peak memory; and files over the
  limits (100 systems x 20 items, 2,500 systems x 2 items): the time to the refusal.

    python benchmarks/space.py                      # everything
    python benchmarks/space.py --only model --repeat 5
    python benchmarks/space.py --only limits --cap 60

The machine this runs on may be busy: CPU seconds (``time.process_time``) are what a request
costs the Space's worker; seconds on the clock grow with the load, printed with each part.
Every run appends its figures, with the machine, the load and the date, to
benchmarks/results/space.json.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchtools import Record  # noqa: E402

DATA = ROOT / "tests" / "data"
BUDGET = 2.0
LANGUAGES = ("python", "java", "javascript", "go", "php", "ruby", "rust", "c", "cpp", "c_sharp")


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
    from cgm_metrics.frontends import space
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
            space.differences_svg(result)
            if result["skipped"]:
                status = "answered; skipped " + ", ".join(sorted(result["skipped"]))
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


def limits_part(args: argparse.Namespace) -> None:
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
        print(f"\n{'case':60s} {'seconds':>8s}  status (budget {BUDGET:g} s)")
        for kind, name, arg, label in cases:
            if args.case and args.case not in label:
                continue
            result = run_case(kind, name, arg, args.cap)
            seconds = "-" if result["seconds"] is None else f"{result['seconds']:.3f}"
            print(f"{label:60s} {seconds:>8s}  {result['status']}", flush=True)
            if result["seconds"] is not None:
                args.record.value(f"limits: {label}", result["seconds"], "s",
                                  f"wall seconds in a fresh process; {result['status']}")


# ---------------------------------------------------------------- real code


def real_pairs(lang: str, n: int = 100) -> tuple[list[str], list[list[str]]]:
    """The first ``n`` (prediction, references) pairs of tests/data/codebleu in ``lang``."""
    path = DATA / "codebleu" / f"codebleu_public_{lang}.jsonl"
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()][:n]
    return [r["predictions"][0] for r in rows], [r["references"] for r in rows]


def _cpu(function, repeat: int) -> float:
    """The median CPU seconds of ``repeat`` calls (after one warm-up call)."""
    function()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


def _load() -> str:
    return ", ".join(f"{x:.1f}" for x in os.getloadavg())


def joined_pairs(lang: str, chars: int = 5_000, n: int = 10
                 ) -> tuple[list[str], list[list[str]]]:
    """``n`` items of real code of about ``chars`` characters a side: consecutive pairs of
    tests/data/codebleu joined (predictions with predictions, first references with first
    references), as a file of several functions."""
    predictions, references = real_pairs(lang, 100)
    out_p, out_r, p_part, r_part = [], [], [], []
    for prediction, refs in zip(predictions, references, strict=True):
        if sum(map(len, p_part)) + len(prediction) > chars and p_part:
            out_p.append("\n\n".join(p_part))
            out_r.append(["\n\n".join(r_part)])
            p_part, r_part = [], []
            if len(out_p) == n:
                break
        p_part.append(prediction)
        r_part.append(refs[0])
    return out_p, out_r


def _rate(metric, predictions, references, repeat: int) -> tuple[float, float]:
    """(CPU seconds per 1,000 characters, mean thousands of characters per item)."""
    chars = sum(map(len, predictions)) + sum(len(r) for refs in references for r in refs)
    seconds = _cpu(lambda: metric.statistics(predictions, references), repeat)
    return seconds / (chars / 1000), chars / 1000 / len(predictions)


def calibrate_part(args: argparse.Namespace) -> None:
    import cgm_metrics
    from cgm_metrics.frontends import space

    names = args.metrics or space.metric_choices()
    print(f"\nCPU seconds per 1,000 characters on real code, tests/data/codebleu: 100 pairs a "
          f"language (items of about 1,000 characters), and the same code joined into items of "
          f"about 10,000 (median of {args.repeat}); load {_load()}")
    print("| metric | " + " | ".join(LANGUAGES) + " | growth per 1,000 chars of an item |")
    print("|---|" + "---:|" * (len(LANGUAGES) + 1))
    rates: dict[str, dict[str, float]] = {}
    growth: dict[str, float] = {}
    for name in names:
        rates[name], slopes, cells = {}, [], []
        for lang in LANGUAGES:
            try:
                metric = cgm_metrics.get_metric(name, lang=lang)
            except ValueError:  # a language the metric does not cover
                cells.append("-")
                continue
            small, _ = _rate(metric, *real_pairs(lang), args.repeat)
            large, size = _rate(metric, *joined_pairs(lang), args.repeat)
            rates[name][lang] = small
            args.record.value(f"calibrate: {name} {lang}", small, "CPU s/1k chars",
                              f"100 real pairs, median of {args.repeat}")
            slopes.append(max(0.0, (large - small) / (size - 1)))
            cells.append(f"{small:.5f} ({large:.5f} at {size:.0f}k)")
        growth[name] = max(slopes, default=0.0)
        print(f"| {name} | " + " | ".join(cells) + f" | {growth[name]:.6f} |", flush=True)

    def up(value: float) -> float:  # two significant digits, rounded up
        if value <= 0:
            return 0.0
        scale = 10 ** (math.floor(math.log10(value)) - 1)
        return math.ceil(value / scale) * scale

    # each language module's `cost` (cgm_metrics/languages/<lang>.py)
    by_language: dict[str, dict[str, float]] = {}
    for name, by_lang in rates.items():
        for lang, rate in by_lang.items():
            by_language.setdefault(lang, {})[name] = up(rate)
    for lang, costs in by_language.items():
        inner = ", ".join(f'"{name}": {rate:.2g}' for name, rate in costs.items())
        print(f"{lang}.py: cost={{{inner}}}")
    for n, g in growth.items():  # each metric class's attribute
        print(f"{n}: seconds_growth_per_1k_chars = {up(g):.2g}")
    print(f"load after: {_load()}")


def model_part(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import space_load

    from cgm_metrics.frontends import space
    from cgm_metrics.pipeline import evaluation

    names = space.metric_choices()
    cache = space.views.METRICS
    space.warm_up()

    def measure(lang: str, references: list[list[str]], systems: dict[str, list[str]],
                tests: bool) -> dict[str, Any]:
        """Per metric: (estimate, worst case, measured CPU seconds) of the statistics; under
        "tests" the significance tests of every metric; under "admitted" the plan."""
        sizes = space.item_sizes(systems.values(), references)
        out: dict[str, Any] = {}
        test_cpu = 0.0
        for name in names:
            try:
                metric_set = evaluation.load_metrics([name], lang, cache=cache)
            except evaluation.InputError:
                continue
            scoring = evaluation.Evaluation(metric_set, references, systems)
            seconds = _cpu(lambda e=scoring: evaluation.compute_statistics(
                e.metric_set, e.systems, e.references), args.repeat)
            out[name] = (space.estimated_seconds(name, sizes, lang),
                         space.worst_case_seconds(name, sizes, lang), seconds)
            if tests:
                scoring.statistics  # noqa: B018 - computed once, outside the timing
                test_cpu += _cpu(lambda e=scoring: e.compare(
                    n_resamples=space.RESAMPLES, seed=space.SEED, alpha=space.ALPHA), args.repeat)
        fixed = space.test_seconds(len(references), len(systems)) if tests else 0.0
        plan = space.plan_metrics([n for n in names if n in out], sizes, lang, fixed)
        if tests:
            out["tests"] = (len(out) * fixed, 0.0, test_cpu)
        out["admitted"] = plan.admitted
        return out

    cases: list[tuple[str, dict]] = []
    for index, (lang, reference, candidates) in enumerate(space_load.side_requests(8, args.seed)):
        label = f"side by side {index}: {lang}, {len(candidates)} candidates of real code"
        cases.append((label, measure(lang, [[reference]] * len(candidates),
                                     {"candidates": candidates}, False)))
    for shape, (lang, make) in SNIPPETS.items():
        label = f"side by side: {lang} {shape}, 4 candidates at 5,000 characters"
        cases.append((label, measure(lang, [[make(0)]] * 4,
                                     {"candidates": [make(v) for v in range(1, 5)]}, False)))
    with tempfile.TemporaryDirectory() as folder:
        for user in range(3):
            refs_path, system_paths = space_load.compare_files(Path(folder) / str(user), user)
            references, systems, _ = space.read_uploads(refs_path, system_paths)
            label = f"3 x 100 real Python, window {user}"
            cases.append((label, measure("python", references, systems, True)))
        for lang in ("python", "java"):
            predictions, references = joined_pairs(lang, n=10)
            label = f"3 x 10 {lang} items of about 10,000 characters (real code joined)"
            systems = {"joined": predictions, "first_half": [p[: len(p) // 2] for p in predictions],
                       "references": [refs[0] for refs in references]}
            cases.append((label, measure(lang, references, systems, True)))
    print(f"\nEstimated (real-code rate) / worst-case bound / measured CPU seconds per metric; "
          f"load {_load()}")
    columns = names + ["tests"]
    print("| case | " + " | ".join(columns) + " | sum measured | admitted |")
    print("|---|" + "---|" * (len(columns) + 2))
    worst_ratio = {name: 0.0 for name in columns}
    for label, out in cases:
        cells = []
        for name in columns:
            if name not in out:
                cells.append("-")
                continue
            estimate, worst, measured = out[name]
            cells.append(f"{estimate:.3f} / {worst:.2f} / {measured:.3f}")
            if estimate > 0 and measured >= 0.01:  # below 10 ms the clock's grain rules
                worst_ratio[name] = max(worst_ratio[name], measured / estimate)
        admitted = out["admitted"]
        total = sum(out[n][2] for n in columns if n in out)
        offered = len([n for n in names if n in out])
        print(f"| {label} | " + " | ".join(cells) + f" | {total:.3f} | "
              f"{len(admitted)} of {offered} |", flush=True)
    print("\nmeasured / estimated, the highest over the cases that took 10 ms or more: "
          + ", ".join(f"{n} {r:.2f}" for n, r in worst_ratio.items()))
    for name, ratio in worst_ratio.items():
        args.record.value(f"model: {name} measured / estimated", ratio, "ratio",
                          "the highest CPU seconds measured / the plan's estimate over the "
                          "cases that took 10 ms or more")
    print(f"load after: {_load()}")


# ---------------------------------------------------------------- agreement uploads


def graded_real_code(path: Path, n_systems: int, n_items: int, text: bool = True,
                     max_bytes: int | None = None, seed: int = 0) -> tuple[Path, int]:
    """A graded JSONL: the references of the Python pairs of tests/data/codebleu (repeated
    when ``n_items`` exceeds them), system s applying (s + item) % 4 mutations to each, four
    graders grading 4 minus the mutations, with noise. ``text``: rows with the prediction and
    references (the metrics are computed), else with a per-item score only. Items stop before
    the file would exceed ``max_bytes``. Returns the path and the number of items."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from corpus import mutate

    rng = random.Random(seed)
    _, references = real_pairs("python", 400)
    lines: list[str] = []
    size = items = 0
    for item in range(n_items):
        reference = references[item % len(references)][0]
        block = []
        for s in range(n_systems):
            prediction, changes = reference, (s + item) % 4
            for _ in range(changes):
                prediction = mutate(prediction, rng)
            grade = 4 - changes
            row: dict[str, Any] = {
                "item": item, "system": f"sys{s}",
                "grades": {f"g{g}": max(0, min(4, grade + rng.choice((-1, 0, 0, 1))))
                           for g in range(4)}}
            if text:
                row.update(prediction=prediction, references=[reference])
            else:
                row["scores"] = {"metric": round(1 - changes / 4 + rng.uniform(-0.1, 0.1), 3)}
            block.append(json.dumps(row) + "\n")
        block_size = sum(len(line.encode()) for line in block)
        if max_bytes is not None and size + block_size > max_bytes:
            break
        lines += block
        size += block_size
        items += 1
    path.write_text("".join(lines), encoding="utf-8")
    return path, items


AGREEMENT_RUNNER = textwrap.dedent('''
    import json, resource, sys, time
    from cgm_metrics.frontends import space
    space.warm_up(["python"], plots=True)
    start, cpu = time.perf_counter(), time.process_time()
    try:
        page = space.agreement_page(sys.argv[1], "default", None)
        status = "answered: " + page["html"].split(", 1000 resamples")[0].split("mmsr, ")[-1]
    except space.SpaceInputError as error:
        status = "refused: " + str(error)[:90]
    print(json.dumps({"seconds": time.perf_counter() - start, "cpu": time.process_time() - cpu,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "status": status}))
''')


def agreement_part(args: argparse.Namespace) -> None:
    from cgm_metrics.frontends import space

    limits = space.LIMITS
    systems = limits.max_graded_systems
    at_limits = dict(max_bytes=limits.max_upload_bytes)
    cases = [
        (f"{systems} systems, real code (metrics computed), 2 MB", systems, 500, True,
         at_limits),
        (f"{systems} systems x {limits.max_graded_rows // systems} items, scores given",
         systems, limits.max_graded_rows // systems, False, at_limits),
        ("5 systems x 100 items, real code (metrics computed)", 5, 100, True, {}),
        ("100 systems x 20 items, scores given (over the limit)", 100, 20, False, {}),
        ("2,500 systems x 2 items, scores given (over the limit)", 2500, 2, False, {}),
    ]
    print(f"\nAgreement uploads in a fresh process (warm-up excluded); load {_load()}")
    print("| upload | rows | MB | seconds | CPU s | peak memory MB | answer |")
    print("|---|---:|---:|---:|---:|---:|---|")
    with tempfile.TemporaryDirectory() as folder:
        for label, n_systems, n_items, text, options in cases:
            path, items = graded_real_code(Path(folder) / f"{n_systems}x{n_items}.jsonl",
                                           n_systems, n_items, text, **options)
            rows = f"{n_systems * items:,} | {path.stat().st_size / 1e6:.1f}"
            try:
                done = subprocess.run([sys.executable, "-c", AGREEMENT_RUNNER, str(path)],
                                      capture_output=True, text=True, timeout=args.cap + 120)
                result = json.loads(done.stdout.strip().splitlines()[-1])
                print(f"| {label} | {rows} | {result['seconds']:.1f} | {result['cpu']:.1f} | "
                      f"{result['peak_mb']:.0f} | {result['status']} |", flush=True)
                args.record.value(f"agreement: {label}", result["seconds"], "s",
                                  f"CPU {result['cpu']:.1f} s, peak {result['peak_mb']:.0f} MB; "
                                  f"{result['status']}")
            except (subprocess.TimeoutExpired, IndexError, json.JSONDecodeError):
                print(f"| {label} | {rows} | - | - | - | over the cap |", flush=True)
    print(f"load after: {_load()}")


PARTS = {"limits": limits_part, "calibrate": calibrate_part, "model": model_part,
         "agreement": agreement_part}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=PARTS, nargs="+", default=list(PARTS))
    parser.add_argument("--cap", type=float, default=120.0, help="seconds per case (limits)")
    parser.add_argument("--case", default="", help="limits: only cases whose name contains this")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--metrics", nargs="+", default=None, help="calibrate: these metrics")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    args.record = Record("space", {"only": args.only, "cap": args.cap, "case": args.case,
                                   "repeat": args.repeat, "metrics": args.metrics,
                                   "seed": args.seed})
    print(f"{os.cpu_count()} CPUs; load {_load()}")
    for part in args.only:
        PARTS[part](args)
    args.record.write()


if __name__ == "__main__":
    main()
