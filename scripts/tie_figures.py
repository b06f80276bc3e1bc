"""Propose the tie of every quoted figure that has none (see benchmarks/quoted.py).

    python scripts/tie_figures.py [--write] [--requote SCRIPT ...] [DOC ...]

For each figure with no tie, the recorded values of the scripts named in its paragraph or
table row (or, if none, of every script) that round to it in its unit are the candidates: a
range over all runs, or one run's value, of any number of any figure. The best candidate (a
ratio field for a ratio, all runs before one run, then the figure whose name shares most words
with the text before the figure) is printed, with the number of other candidates, so a person
checks it; ``--write`` inserts the ties (and ``†`` with ``earlier`` where the measured code
changed since the runs). ``--requote SCRIPT`` rewrites a matched figure of SCRIPT from its
runs that recorded a commit (the scripts whose older runs did not), at the same precision.
Figures it finds no candidate for are listed: tie them by hand, or mark them ``fig setting``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))
import quoted as q  # noqa: E402

NAMED = re.compile(r"(?:benchmarks/|results/)(\w+)\.(?:py|json)")
# words before a number that make it a limit or a default rather than a measurement
SETTING = re.compile(r"timeout $|time limit|limit \($|limit of|budget|backstop|at most $|"
                     r"max\($|--[a-z-]+ \S*$|reserves|time limits: $")
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8}
FIELDS = ("ratio", "ratio_median", "ours_best_s", "peer_best_s", "ours_median_s",
          "peer_median_s", "value")


def _fields(figure: dict) -> list[str]:
    found = []
    for name in FIELDS:
        if name not in figure:
            continue
        value = figure[name]
        if isinstance(value, dict):
            found += [f"{name}.{part}" for part, v in value.items() if isinstance(v, (int, float))]
            continue
        found.append(name)
        if "units" in figure and name.endswith("_s"):
            found += [f"{name}/units", f"units/{name}"]
    return found


def _words(text: str) -> set[str]:
    return {w.lower() for w in re.findall(r"[A-Za-z+#]+", text) if len(w) > 1}


def candidates(quote: q.Quoted, scripts: list[str], results: dict) -> list[tuple]:
    found = []
    written_kind, written_scale = q._kind(quote.unit)
    before = _words(quote.context.split(quote.written)[0][-70:]) if quote.written else set()
    # "six runs at load ...: 3.11-3.26 s": a range over as many runs as the text says
    counted = re.findall(r"\b(two|three|four|five|six|seven|eight)\b(?: [a-z-]+)? runs?",
                         quote.context.split(quote.written)[0] if quote.written else "")
    said = NUMBERS.get(counted[-1], 0) if counted else 0
    for script in scripts:
        runs = results[script]["runs"]
        keys = dict.fromkeys(k for r in runs for k in r["figures"])
        for key in keys:
            having = [r for r in runs if key in r["figures"]]
            for field in _fields(having[-1]["figures"][key]):
                valid = [r for r in having if q.recorded_commit(r)]
                sets = [("range", "all", having)] + [("one", r["date"], [r]) for r in valid]
                if quote.high is not None:  # a range: also every run of consecutive runs
                    sets += [("range", ",".join(r["date"] for r in valid[i:i + n]),
                              valid[i:i + n])
                             for n in range(2, 9) for i in range(len(valid) - n + 1)]
                for statistic, names, chosen in sets:
                    try:
                        values, unit, _ = q.value_of([script, key, field, statistic, names],
                                                     results)
                    except ValueError:
                        continue
                    kind, scale = q._kind(unit)
                    if kind != written_kind:
                        continue
                    factor = scale / written_scale if kind in ("time", "size") else 1.0
                    values = [v * factor for v in values]
                    low, high = min(values), max(values)
                    if not (q._rounds_to(low, quote.low)
                            and q._rounds_to(high, quote.high or quote.low)):
                        continue
                    score = (len(before & _words(key)) * 3
                             + (2 if statistic == "range" and len(chosen) > 1 else 0)
                             + (1 if field.startswith(("ratio", "value")) else 0)
                             - (1 if "median" in field and "median" not in before else 0)
                             + 0.01 * len(chosen)  # the most runs a range can stand for
                             + (5 if statistic == "range" and len(chosen) == said else 0))
                    found.append((score, script, key, field, statistic, names, chosen))
    found.sort(key=lambda c: -c[0])
    return found


def scripts_near(lines: list[str], index: int, results: dict) -> list[str]:
    line = lines[index]
    named = [n for n in NAMED.findall(line) if n in results]
    if named:
        return list(dict.fromkeys(named))
    # the paragraph (or the table's paragraph above it)
    j = index - 1
    while j >= 0:
        named = [n for n in NAMED.findall(lines[j]) if n in results]
        if named:
            return list(dict.fromkeys(named))
        if lines[j].startswith("#"):
            break
        j -= 1
    return []


UNTIED_HEADER = """\
# Figures quoted with no tie to a recorded run (tests/test_benchmark_figures.py): each is
# forgiven only word for word (document, figure, the 40 characters before it), so none can
# change; tie it, or remove it, and drop its line. Tab-separated. This list may only shrink.
"""


def list_untied() -> int:
    rows = []
    for path in q.documents():
        name = str(path.relative_to(ROOT))
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for quote in q.quoted(name, text):
            if quote.spec is None:
                line = lines[int(quote.where.rsplit(":", 1)[1]) - 1]
                before = line[max(0, quote.start - 40):quote.start]
                assert "\t" not in before + quote.written
                rows.append(f"{name}\t{quote.written}\t{before}")
    (ROOT / "benchmarks" / "untied_figures.txt").write_text(
        UNTIED_HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    print(f"{len(rows)} untied figures listed")
    return 0


LEGEND = ("† measured on an earlier version of the code its benchmark script measures (the "
          "figure is that recorded run's; the script has not been run again since that code "
          "changed).")


def mark_earlier(results: dict, git: q.Git) -> int:
    marked = 0
    for path in q.documents():
        name = str(path.relative_to(ROOT))
        lines = path.read_text(encoding="utf-8").split("\n")
        fenced = False
        for index, line in enumerate(lines):
            if q.FENCE.match(line.lstrip()):
                fenced = not fenced
            if fenced:
                continue
            stale = [quote for quote in q.quoted(name, line) if quote.spec and quote.written
                     and any("changed since" in p for p in q.check(quote, results, git))]
            for quote in sorted(stale, key=lambda x: -x.start):
                full = f"{quote.written}<!--fig {quote.spec}-->"
                assert line[quote.start:quote.start + len(full)] == full
                line = (line[:quote.start] + f"{quote.written}†<!--fig {quote.spec} earlier-->"
                        + line[quote.start + len(full):])
                marked += 1
            lines[index] = line
        text = "\n".join(lines)
        if "†<!--fig" in text and LEGEND not in text and "† " not in text.replace("†<!--fig", ""):
            text = text.rstrip("\n") + "\n\n" + LEGEND + "\n"
        path.write_text(text, encoding="utf-8")
    print(f"{marked} figures marked as measured on an earlier version")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("docs", nargs="*")
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--requote", nargs="*", default=[])
    parser.add_argument("--list-untied", action="store_true",
                        help="only write benchmarks/untied_figures.txt: every figure still "
                        "without a tie, word for word with the 40 characters before it")
    parser.add_argument("--mark-earlier", action="store_true",
                        help="only mark with † (and 'earlier' in the tie) every tied figure "
                        "whose measured code changed since its runs, for a change that does "
                        "not re-run the benchmarks")
    parser.add_argument("--skip", nargs="*", default=[],
                        help="leave the figures whose best candidate is of these scripts")
    args = parser.parse_args()
    results = q.load_results()
    if args.list_untied:
        return list_untied()
    git = q.Git() if q.Git().usable() else None
    if args.mark_earlier:
        if git is None:
            raise SystemExit("--mark-earlier needs the repository's history (git)")
        return mark_earlier(results, git)
    paths = [ROOT / d for d in args.docs] if args.docs else q.documents()
    left = []
    for path in paths:
        name = str(path.relative_to(ROOT))
        lines = path.read_text(encoding="utf-8").split("\n")
        fenced = False
        for index, line in enumerate(lines):
            if q.FENCE.match(line.lstrip()):
                fenced = not fenced
            if fenced:  # fenced code: the docs' tests run it, its output is compared
                continue
            edits = []
            for quote in q.quoted(name, line):
                if quote.spec is not None or not quote.written:
                    continue
                before = line[max(0, quote.start - 40):quote.start]
                if SETTING.search(before):
                    print(f"{name}:{index + 1}: {quote.written} -> fig setting  [{before}]")
                    edits.append((quote, quote.written, None, "", "setting"))
                    continue
                found = candidates(quote, scripts_near(lines, index, results), results)
                if not found:
                    left.append(f"{name}:{index + 1}: {quote.written} in ...{quote.context}...")
                    continue
                _, script, key, field, statistic, names, chosen = found[0]
                if script in args.skip:
                    continue
                top = {(c[1], c[2], c[3]) for c in found if c[0] == found[0][0]}
                if len(top) > 1 or (quote.high is None and len(found) > 3):
                    left.append(f"{name}:{index + 1}: {quote.written} ambiguous: "
                                f"{sorted(top)[:4]}")
                    continue
                written = quote.written.rstrip("†")
                low_high = None
                if script in args.requote:
                    kept = [r for r in chosen if (r.get("code") or {}).get("commit")]
                    if not kept:
                        having = [r for r in results[script]["runs"]
                                  if key in r["figures"] and (r.get("code") or {}).get("commit")]
                        kept = having
                    if kept and len(kept) != len(chosen) or (kept and kept != chosen):
                        names = ",".join(r["date"] for r in kept)
                        statistic = "range" if len(kept) > 1 else "one"
                        values, unit, _ = q.value_of([script, key, field, statistic, names],
                                                     results)
                        kind, scale = q._kind(unit)
                        wk, ws = q._kind(quote.unit)
                        factor = scale / ws if kind in ("time", "size") else 1.0
                        values = [v * factor for v in values]
                        lo = f"{min(values):.{q._digits(quote.low.replace(',', ''))}f}"
                        hi = f"{max(values):.{q._digits((quote.high or quote.low).replace(',', ''))}f}"
                        low_high = lo if lo == hi else f"{lo}-{hi}"
                spec = " ".join(q.shlex.quote(w) for w in (script, key, field, statistic, names))
                tie = q.Quoted(quote.where, written, quote.low, quote.high, quote.unit, False,
                               spec, quote.context)
                if low_high is not None:
                    lo, _, hi = low_high.partition("-")
                    tie = q.Quoted(quote.where, written, lo, hi or None, quote.unit, False,
                                   spec, quote.context)
                stale = [p for p in q.check(tie, results, git) if "changed since" in p]
                dagger = "†" if stale else ""
                if stale:
                    spec += " earlier"
                print(f"{name}:{index + 1}: {written} -> {low_high or ''} fig {spec}"
                      f"  [{len(found) - 1} other candidates]")
                edits.append((quote, written, low_high, dagger, spec))
            for quote, written, low_high, dagger, spec in sorted(edits, key=lambda e: -e[0].start):
                new_text = written
                if low_high is not None:
                    number = quote.low + (f"-{quote.high}" if quote.high else "")
                    new_text = written.replace(number, low_high, 1)
                end = quote.start + len(written)
                assert line[quote.start:end] == written, (line[quote.start:end], written)
                line = line[:quote.start] + f"{new_text}{dagger}<!--fig {spec}-->" + line[end:]
            lines[index] = line
        if args.write:
            path.write_text("\n".join(lines), encoding="utf-8")
    print(f"\n{len(left)} figures with no candidate:")
    print("\n".join(left))
    return 0


if __name__ == "__main__":
    sys.exit(main())
