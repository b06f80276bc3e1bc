"""Make, and check against, the golden CodeBLEU values in tests/data/codebleu/.

    python scripts/codebleu_golden.py generate [--langs go rust] [--out DIR] [--jobs 2]
    python scripts/codebleu_golden.py check [--set-order package source]
    python scripts/codebleu_golden.py count

``generate`` recomputes every value of the golden files with the ``codebleu`` package
(``pip install --no-deps codebleu==0.7.0``), each in child processes with PYTHONHASHSEED fixed
to 0, 1, ..., 24: per pair ``calc_codebleu(references=[rec["references"]],
predictions=rec["predictions"], lang=rec["lang"])``, per file one call over all its pairs in
file order, and the package's own test vectors at PYTHONHASHSEED=0. ``min``/``max`` are over
seeds 0-4, ``range_25_seeds`` over 0-24 (for a pair only when it varies). The inputs (the
snippets, ids, kinds and mutations) are read from the files being regenerated: they were cut
from the sources named in tests/data/codebleu/README.md, which are not needed to remake the
values. The files are written to ``--out`` (default: a new temporary folder, printed), in the
same layout byte for byte, so ``diff -r`` against tests/data/codebleu shows any change. It
refuses to run with other versions than the ones below unless ``--any-version`` is given:
grammar versions change trees, and so values.

``check`` scores every golden pair and corpus with this library and prints, per language, the
pairs and corpora whose value falls outside the package's range (``range_25_seeds`` where
recorded, else the 5-seed ``min``/``max``; 1e-9 tolerance), for each ``--set-order``.

``count`` prints what the files hold: pairs, references, kinds, pairs that vary with the seed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "codebleu"
LANGS = ("python", "c", "c_sharp", "cpp", "javascript", "java", "php", "go", "ruby", "rust")
KEYS = ("codebleu", "ngram_match_score", "weighted_ngram_match_score", "syntax_match_score",
        "dataflow_match_score")
SEEDS = range(25)        # range_25_seeds
SEEDS_MIN_MAX = range(5)  # min / max and the corpus per_seed
TOLERANCE = 1e-9
# The environment the files were made in (Python: CPython 3.11.7; the values are the same on
# 3.12 and 3.13).
VERSIONS = {
    "codebleu": "0.7.0",
    "tree-sitter": "0.26.1",
    "tree-sitter-python": "0.25.0",
    "tree-sitter-c": "0.24.2",
    "tree-sitter-c-sharp": "0.23.5",
    "tree-sitter-cpp": "0.23.4",
    "tree-sitter-javascript": "0.25.0",
    "tree-sitter-java": "0.23.5",
    "tree-sitter-php": "0.25.1",
    "tree-sitter-go": "0.25.0",
    "tree-sitter-ruby": "0.23.1",
    "tree-sitter-rust": "0.24.2",
}

_WORKER = r"""
import json, sys
from codebleu import calc_codebleu
out = []
for references, predictions, lang in json.loads(sys.stdin.read()):
    out.append(calc_codebleu(references=references, predictions=predictions, lang=lang))
print(json.dumps(out))
"""


def pair_file(lang: str, folder: Path = DATA) -> Path:
    return folder / f"codebleu_public_{lang}.jsonl"


def read_pairs(lang: str, folder: Path = DATA) -> list[dict]:
    with open(pair_file(lang, folder), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def check_versions(any_version: bool) -> None:
    found = {}
    for name in VERSIONS:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    wrong = {name: version for name, version in found.items() if version != VERSIONS[name]}
    print(f"Python {sys.version.split()[0]}; " + ", ".join(f"{k} {v}" for k, v in found.items()))
    if wrong and not any_version:
        raise SystemExit(
            "these versions differ from the ones the golden files were made with: "
            + ", ".join(f"{name} {version} (needs {VERSIONS[name]})" for name, version in wrong.items())
            + "\ninstall those (codebleu with --no-deps), or pass --any-version")


def run_package(jobs: list[tuple], seed: int) -> list[dict]:
    """``calc_codebleu`` of each (references, predictions, lang) job in one child process with
    PYTHONHASHSEED=seed."""
    env = {**os.environ, "PYTHONHASHSEED": str(seed)}
    done = subprocess.run([sys.executable, "-c", _WORKER], input=json.dumps(jobs), env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"the codebleu package failed at PYTHONHASHSEED={seed}:\n{done.stderr}")
    return json.loads(done.stdout)


def run_seeds(jobs: list[tuple], seeds, parallel: int) -> dict[int, list[dict]]:
    """The package's results for every job under every seed, ``parallel`` seeds at a time."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=parallel) as pool:
        results = dict(zip(seeds, pool.map(lambda s: run_package(jobs, s), seeds), strict=True))
    return results


def min_max(values: list[dict]) -> dict[str, dict[str, float]]:
    return {key: {"min": min(v[key] for v in values), "max": max(v[key] for v in values)}
            for key in KEYS}


def constant(summary: dict[str, dict[str, float]]) -> bool:
    return all(part["min"] == part["max"] for part in summary.values())


def pair_record(record: dict, per_seed: list[dict]) -> dict:
    """The golden record of a pair from its inputs and the package's value at seeds 0-24."""
    first = min_max(per_seed[: len(SEEDS_MIN_MAX)])
    every = min_max(per_seed)
    out = {key: record[key] for key in ("id", "lang", "predictions", "references")}
    out.update(first)
    out["deterministic"] = constant(first)
    out["stable_25_seeds"] = constant(every)
    if not out["stable_25_seeds"]:
        out["range_25_seeds"] = every
    values = set(KEYS) | {"deterministic", "stable_25_seeds", "range_25_seeds"}
    out.update({key: value for key, value in record.items() if key not in out and key not in values})
    return out


def corpus_record(lang: str, n_pairs: int, per_seed: list[dict]) -> dict:
    first = per_seed[: len(SEEDS_MIN_MAX)]
    out: dict = {"file": pair_file(lang).name, "n_pairs": n_pairs}
    out.update(min_max(first))
    out["deterministic"] = constant(min_max(first))
    out["stable_25_seeds"] = constant(min_max(per_seed))
    out["range_25_seeds"] = min_max(per_seed)
    out["per_seed"] = {str(seed): {key: values[key] for key in KEYS}
                       for seed, values in zip(SEEDS_MIN_MAX, first, strict=False)}
    return out


def generate(args: argparse.Namespace) -> None:
    check_versions(args.any_version)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="codebleu-golden-"))
    out.mkdir(parents=True, exist_ok=True)
    corpus = {}
    for lang in args.langs:
        rows = read_pairs(lang)
        jobs = [([row["references"]], row["predictions"], lang) for row in rows]
        jobs.append(([row["references"] for row in rows], [row["predictions"][0] for row in rows],
                     lang))
        results = run_seeds(jobs, list(SEEDS), args.jobs)
        with open(pair_file(lang, out), "w", encoding="utf-8") as handle:
            for index, row in enumerate(rows):
                per_seed = [results[seed][index] for seed in SEEDS]
                handle.write(json.dumps(pair_record(row, per_seed), ensure_ascii=False) + "\n")
        corpus[lang] = corpus_record(lang, len(rows), [results[seed][-1] for seed in SEEDS])
        print(f"{lang}: {len(rows)} pairs and the corpus at {len(SEEDS)} seeds", flush=True)
    if set(args.langs) == set(LANGS):
        (out / "codebleu_public_corpus.json").write_text(json.dumps(corpus, indent=1))
    else:  # a subset: the other languages' corpus records are kept as they are
        kept = json.loads((DATA / "codebleu_public_corpus.json").read_text())
        kept.update(corpus)
        (out / "codebleu_public_corpus.json").write_text(json.dumps(kept, indent=1))
    vectors = [json.loads(line) for line in
               (DATA / "package_test_vectors.jsonl").read_text(encoding="utf-8").splitlines()]
    results = run_package([(v["ref"], v["pred"], v["lang"]) for v in vectors], 0)
    with open(out / "package_test_vectors.jsonl", "w", encoding="utf-8") as handle:
        for vector, result in zip(vectors, results, strict=True):
            record = {key: vector[key] for key in ("tag", "lang", "pred", "ref", "asserted")}
            record.update({key: result[key] for key in KEYS})
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"written to {out}; compare: diff -r {out} tests/data/codebleu")


def outside(ours: dict, golden: dict) -> list[str]:
    """The keys of ``ours`` outside the package's range recorded in ``golden``."""
    bounds = golden.get("range_25_seeds") or {key: golden[key] for key in KEYS}
    return [key for key in KEYS
            if not bounds[key]["min"] - TOLERANCE <= ours[key] <= bounds[key]["max"] + TOLERANCE]


def check(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from cgm_metrics.maths.codebleu import compute_codebleu

    corpus = json.loads((DATA / "codebleu_public_corpus.json").read_text())
    for set_order in args.set_order:
        total = bad_pairs = bad_corpora = 0
        names: list[str] = []
        corpus_names: list[str] = []
        for lang in args.langs:
            rows = read_pairs(lang)
            for row in rows:
                ours = compute_codebleu(row["predictions"], [row["references"]], lang=lang,
                                        set_order=set_order)
                keys = outside(ours, row)
                if keys:
                    bad_pairs += 1
                    names.append(f"{row['id']} ({', '.join(keys)})")
            total += len(rows)
            ours = compute_codebleu([row["predictions"][0] for row in rows],
                                    [row["references"] for row in rows], lang=lang,
                                    set_order=set_order)
            keys = outside(ours, corpus[lang])
            if keys:
                bad_corpora += 1
                corpus_names.append(f"{lang} ({', '.join(keys)})")
        print(f"set_order={set_order!r}: {bad_pairs} of {total} pairs outside the package's "
              f"range{': ' + '; '.join(names) if names else ''}")
        print(f"  {bad_corpora} of {len(args.langs)} corpora outside the package's 25-seed "
              f"range{': ' + '; '.join(corpus_names) if corpus_names else ''}")


def count(args: argparse.Namespace) -> None:
    grand: Counter = Counter()
    print("| language | pairs | 2 references | mutated | unrelated | edge cases | vary over "
          "seeds 0-4 | vary over seeds 0-24 |\n|---|---:|---:|---:|---:|---:|---:|---:|")
    for lang in args.langs:
        rows = read_pairs(lang)
        kinds = Counter(row["kind"].split(":")[0] for row in rows)
        line = Counter(pairs=len(rows), two=sum(row["n_references"] == 2 for row in rows),
                       mutated=kinds["mutated"], unrelated=kinds["unrelated"], edge=kinds["edge"],
                       vary5=sum(not row["deterministic"] for row in rows),
                       vary25=sum(not row["stable_25_seeds"] for row in rows))
        grand.update(line)
        print(f"| {lang} | " + " | ".join(str(line[k]) for k in
              ("pairs", "two", "mutated", "unrelated", "edge", "vary5", "vary25")) + " |")
    print("| all | " + " | ".join(str(grand[k]) for k in
          ("pairs", "two", "mutated", "unrelated", "edge", "vary5", "vary25")) + " |")
    corpus = json.loads((DATA / "codebleu_public_corpus.json").read_text())
    varying = [lang for lang in args.langs if not corpus[lang]["stable_25_seeds"]]
    print(f"corpora whose value varies over seeds 0-24: {len(varying)} of {len(args.langs)} "
          f"({', '.join(varying)})")
    vectors = (DATA / "package_test_vectors.jsonl").read_text(encoding="utf-8").splitlines()
    print(f"package test vectors: {len(vectors)}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    for name in ("generate", "check", "count"):
        command = commands.add_parser(name)
        command.add_argument("--langs", nargs="+", choices=LANGS, default=list(LANGS))
        if name == "generate":
            command.add_argument("--out", help="folder to write (default: a new temporary one)")
            command.add_argument("--jobs", type=int, default=1, help="seeds run at once")
            command.add_argument("--any-version", action="store_true")
        if name == "check":
            command.add_argument("--set-order", nargs="+", choices=("package", "source"),
                                 default=["package", "source"])
    args = parser.parse_args(argv)
    {"generate": generate, "check": check, "count": count}[args.command](args)


if __name__ == "__main__":
    main()
