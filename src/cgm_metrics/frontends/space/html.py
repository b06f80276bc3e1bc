"""The Space's HTML: score tables, pair tables and matrices, diffs, the agreement table and
the explanations. Everything shown is escaped; numbers are written as the ``cgm`` tables
write them (:mod:`cgm_metrics.base.formatting`)."""

from __future__ import annotations

import html
import re
from typing import Any

from ...base.formatting import format_p, format_value, matrix_rows

TRUST_NOTE = (
    "**How far to trust these numbers.** One snippet is one item; metric differences are "
    "noisy. Differences under 2 points (0.02 on 0-1 scales) are often not significant "
    "(Roy et al. 2021), and on CoNaLa no metric reproduced programmers' preferences with "
    "95% certainty below a 5-point difference (2 points on HearthStone; Evtikhiev et al. "
    "2023, *Out of the BLEU*). chrF agreed with humans better than BLEU and CodeBLEU there. "
    "To claim one system is better, score a whole test set in the **Systems** tab, which "
    "runs a paired significance test."
)


def format_score(value: float | None, scale: float) -> str:
    """A score on its metric's scale: 2 decimals on 0-100, 4 on 0-1 (as the ``cgm`` tables)."""
    return format_value(value, scale)


def explanation_markdown(names: Any = None) -> str:
    """What each metric measures (its one-line description) and how far to trust it."""
    from ...pipeline.evaluation import describe_metrics

    described = {entry["name"]: entry for entry in describe_metrics(runs_code=False)}
    chosen = list(described) if names is None else [n for n in names if n in described]
    lines = [f"- **{name}** ({described[name]['display_name']}): "
             f"{described[name]['description']}" for name in chosen
             if described[name]["description"]]
    return "\n".join(lines) + "\n\n" + TRUST_NOTE


_COMPONENT_NAMES = {
    "ngram_match_score": "n-gram",
    "weighted_ngram_match_score": "weighted n-gram",
    "syntax_match_score": "syntax",
    "dataflow_match_score": "dataflow",
}


def side_by_side_html(result: dict[str, Any]) -> str:
    """The scores as an HTML table: one row per metric (and component), one column per
    candidate; the best candidate of each row is bold."""
    labels = [c["label"] for c in result["candidates"]]
    head = "".join(f"<th>candidate {html.escape(label)}</th>" for label in labels)
    rows = []
    for name in result["metrics"]:
        scale = result["scales"][name]
        entries = [c["scores"][name] for c in result["candidates"]]
        values = [e["score"] for e in entries]
        best = max(values)
        cells = []
        for entry in entries:
            text = format_score(entry["score"], scale)
            if "level" in entry:
                text += f" <small>({html.escape(entry['level'])})</small>"
            strong = entry["score"] == best and len(set(values)) > 1
            cells.append(f"<td class='num'>{'<b>' + text + '</b>' if strong else text}</td>")
        range_text = "0-100" if scale >= 10 else "0-1"
        rows.append(f"<tr data-metric='{name}'><th>{name} <small>({range_text})</small></th>"
                    + "".join(cells) + "</tr>")
        components = entries[0].get("components") or {}
        for key in components:
            part_cells = "".join(
                f"<td class='num'>{format_score(e['components'][key], scale)}</td>"
                for e in entries
            )
            label = _COMPONENT_NAMES.get(key, key)
            rows.append(f"<tr class='component' data-metric='{name}.{key}'>"
                        f"<th>&nbsp;&nbsp;{html.escape(label)}</th>{part_cells}</tr>")
    notes = "".join(
        f"<p class='note'>{html.escape(name)} skipped: {html.escape(reason)}</p>"
        for name, reason in result["skipped"].items()
    )
    return (f"<table class='cgm-scores' id='side-by-side-scores'><thead><tr><th>metric</th>"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>{notes}")


_TOKEN = re.compile(r"\s+|\w+|[^\w\s]", re.UNICODE)


def _changes(opcodes) -> list[tuple[str, int, int, int, int]]:
    """Indel opcodes with each run of deletions and insertions merged into one ``replace``
    (so a changed token shows as ``<del>old</del><ins>new</ins>``)."""
    merged: list[tuple[str, int, int, int, int]] = []
    for op in opcodes:
        tag, i1, i2, j1, j2 = op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end
        if tag != "equal" and merged and merged[-1][0] != "equal":
            _, a1, _, b1, _ = merged[-1]
            merged[-1] = ("replace", a1, i2, b1, j2)
        else:
            merged.append((tag, i1, i2, j1, j2))
    return merged


def _token_diff(reference: str, candidate: str, parts: list[str]) -> tuple[int, int]:
    """Append the token diff of two texts to ``parts``; ``(common tokens, all tokens)``."""
    from rapidfuzz.distance import Indel

    ref_tokens = _TOKEN.findall(reference)
    cand_tokens = _TOKEN.findall(candidate)
    common = 0
    for tag, i1, i2, j1, j2 in _changes(Indel.opcodes(ref_tokens, cand_tokens)):
        if tag == "equal":
            parts.append(html.escape("".join(cand_tokens[j1:j2])))
            common += 2 * (j2 - j1)
            continue
        if i2 > i1:
            parts.append(f"<del>{html.escape(''.join(ref_tokens[i1:i2]))}</del>")
        if j2 > j1:
            parts.append(f"<ins>{html.escape(''.join(cand_tokens[j1:j2]))}</ins>")
    return common, len(ref_tokens) + len(cand_tokens)


def diff_html(reference: str, candidate: str, label: str = "") -> str:
    """Where a candidate differs from the reference, as escaped HTML: ``<del>`` for reference
    text the candidate lacks, ``<ins>`` for text it adds.

    Lines are aligned first and tokens only inside the changed lines, both with rapidfuzz's
    bit-parallel longest common subsequence (about a millisecond for two 5,000-character
    snippets, where difflib on tokens took up to a minute)."""
    from rapidfuzz.distance import Indel

    ref_lines = reference.splitlines(keepends=True)
    cand_lines = candidate.splitlines(keepends=True)
    parts: list[str] = []
    common = total = 0
    for tag, i1, i2, j1, j2 in _changes(Indel.opcodes(ref_lines, cand_lines)):
        if tag == "equal":
            text = "".join(cand_lines[j1:j2])
            parts.append(html.escape(text))
            n_tokens = len(_TOKEN.findall(text))
            common, total = common + 2 * n_tokens, total + 2 * n_tokens
            continue
        block_common, block_total = _token_diff("".join(ref_lines[i1:i2]),
                                                "".join(cand_lines[j1:j2]), parts)
        common, total = common + block_common, total + block_total
    title = f"<h4>candidate {html.escape(label)} vs reference</h4>" if label else ""
    ratio = common / total if total else 1.0
    return (f"<div class='cgm-diff'>{title}<pre>{''.join(parts)}</pre>"
            f"<small>{ratio:.0%} of tokens in common</small></div>")



def systems_html(result: dict[str, Any]) -> str:
    """Scores with intervals, the pairs with verdicts and the significance matrix as HTML."""
    systems = result["systems"]
    names = list(result["metrics"])
    parts = [f"<p>{result['n_items']} items, {len(systems)} systems, language "
             f"{html.escape(result['lang'])}; paired bootstrap, {result['n_resamples']} "
             f"resamples, seed {result['seed']}, p-values Holm-adjusted over all pairs, "
             f"alpha {result['alpha']}.</p>"]
    parts += [f"<p class='note warning'>Warning: {html.escape(text)}</p>"
              for text in result.get("warnings", ())]
    head = "".join(f"<th>{html.escape(n)} [95% CI]</th>" for n in names)
    rows = []
    for system in systems:
        cells = []
        for name in names:
            entry, scale = result["metrics"][name]["scores"][system], result["metrics"][name][
                "scale"]
            cells.append(f"<td class='num'>{format_score(entry['score'], scale)} "
                         f"<small>[{format_score(entry['low'], scale)}, "
                         f"{format_score(entry['high'], scale)}]</small></td>")
        rows.append(f"<tr><th>{html.escape(system)}</th>{''.join(cells)}</tr>")
    parts.append(f"<h3>Scores</h3><table class='cgm-scores' id='system-scores'><thead><tr>"
                 f"<th>system</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")
    for name in names:
        entry = result["metrics"][name]
        scale = entry["scale"]
        pair_rows = "".join(
            f"<tr class='{'sig' if p['significant'] else 'ns'}'>"
            f"<td>{html.escape(p['a'])} vs {html.escape(p['b'])}</td>"
            f"<td class='num'>{'+' if p['delta'] >= 0 else '-'}"
            f"{format_score(abs(p['delta']), scale)}</td>"
            f"<td class='num'>{format_p(p['p_value'])}</td>"
            f"<td class='num'>{format_p(p['p_adjusted'])}</td>"
            f"<td class='num'>{format_score(p['mdd'], scale)}</td>"
            f"<td class='verdict'>{html.escape(p['verdict'])}</td></tr>"
            for p in entry["pairs"]
        )
        matrix = matrix_rows(systems, entry["pairs"])
        matrix_head = "".join(f"<th>{html.escape(s)}</th>" for s in systems)
        matrix_body = "".join(
            "<tr>" + f"<th>{html.escape(row[0])}</th>"
            + "".join(f"<td class='num'>{html.escape(c)}</td>" for c in row[1:]) + "</tr>"
            for row in matrix
        )
        parts.append(
            f"<h3>{html.escape(name)}</h3><table class='cgm-pairs' data-metric='{name}'>"
            "<thead><tr><th>A vs B</th><th>B - A</th><th>p</th><th>p (Holm)</th>"
            "<th>MDD</th><th>verdict</th></tr></thead>"
            f"<tbody>{pair_rows}</tbody></table>"
            f"<p><small>Significance matrix (Holm-adjusted p; * = significant):</small></p>"
            f"<table class='cgm-matrix'><thead><tr><th></th>{matrix_head}</tr></thead>"
            f"<tbody>{matrix_body}</tbody></table>"
            f"<p><small>Signature: <code>{html.escape(entry['signature'])}</code></small></p>"
        )
    parts += [f"<p class='note'>{html.escape(n)} skipped: {html.escape(r)}</p>"
              for n, r in result["skipped"].items()]
    parts.append("<p><small>MDD: the minimum detectable difference, the smallest difference "
                 "this test set detects at alpha 0.05 with power 0.8. A difference below it "
                 "that is not significant says little either way.</small></p>")
    return "".join(parts)



def agreement_html(result: Any) -> str:
    """The per-metric, per-bin mismatch table and the correlations as HTML."""
    header = ("<tr><th>metric</th><th>|metric delta| bin</th><th>pairs</th><th>significant"
              "</th><th>not significant</th><th>mismatches</th><th>Type I</th><th>Type II</th>"
              "<th>opposite</th><th>mismatch rate</th></tr>")
    rows = []
    for metric, bins in result.table.items():
        for row in bins:
            rate = "-" if row["mismatch_rate"] is None else f"{row['mismatch_rate']:.3f}"
            rows.append(
                f"<tr data-metric='{html.escape(metric)}'><th>{html.escape(metric)}</th>"
                f"<td>{html.escape(str(row['bin']))}</td>"
                + "".join(f"<td class='num'>{row[k]}</td>" for k in (
                    "pairs", "significant", "not_significant", "mismatches", "type_i",
                    "type_ii", "opposite"))
                + f"<td class='num'>{rate}</td></tr>"
            )
    intro = (f"<p>protocol {html.escape(result.protocol)}, grades aggregated with "
             f"{html.escape(result.aggregate)}, {html.escape(result.models_summary())}, "
             f"{result.n_resamples} resamples, seed {result.seed}, alpha {result.alpha:g}. "
             + "".join(f"Note: {html.escape(note)} " for note in result.notes)
             + "A mismatch is a pair "
             "where the metric's verdict differs from the humans' (Type I: the metric sees a "
             "difference the humans do not; Type II: the humans see one the metric misses).</p>")
    parts = [intro, f"<table class='cgm-agreement' id='agreement-table'><thead>{header}"
                    f"</thead><tbody>{''.join(rows)}</tbody></table>"]
    if result.correlations:
        corr_rows = []
        for level in ("per_item", "per_system"):
            for metric, entry in result.correlations.get(level, {}).items():
                cells = []
                for kind in ("pearson", "spearman", "kendall"):
                    c = entry[kind]
                    cells.append("<td>-</td>" if c["value"] is None else
                                 f"<td class='num'>{c['value']:.3f} <small>[{c['low']:.3f}, "
                                 f"{c['high']:.3f}]</small></td>")
                corr_rows.append(f"<tr><th>{html.escape(metric)}</th><td>{level}</td>"
                                 + "".join(cells) + "</tr>")
        parts.append("<h3>Correlation with human grades</h3><table class='cgm-scores'><thead>"
                     "<tr><th>metric</th><th>level</th><th>Pearson</th><th>Spearman</th>"
                     f"<th>Kendall</th></tr></thead><tbody>{''.join(corr_rows)}</tbody></table>")
    return "".join(parts)

