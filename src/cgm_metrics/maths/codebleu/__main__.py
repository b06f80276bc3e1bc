"""CodeXGLUE's ``calc_code_bleu.py`` command line, with the numbers of the `codebleu` package.

    python -m cgm_metrics.maths.codebleu --refs ref1.txt [ref2.txt ...] --hyp hyp.txt --lang java \
        [--params 0.25,0.25,0.25,0.25]

Files are read as CodeXGLUE reads them: one snippet per line, each line stripped, backslashes
literal (``\\n`` inside a string literal stays two characters). It prints the same two lines as
CodeXGLUE's script::

    ngram match: ..., weighted ngram match: ..., syntax_match: ..., dataflow_match: ...
    CodeBLEU score:  ...

The values are those of ``codebleu.calc_codebleu`` 0.7.0 (the package's ``or 1`` on a zero
dataflow included; ``--dataflow zero`` gives CodeXGLUE's plain ``theta * dataflow_match``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .functions import compute_codebleu
from .options import DATAFLOW_MODES, codebleu_language, codebleu_languages


def read_lines(path: str) -> list[str]:
    """The snippets of ``path`` as CodeXGLUE reads them (text mode, each line stripped)."""
    with open(path, encoding="utf-8") as handle:
        return [line.strip() for line in handle.readlines()]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m cgm_metrics.maths.codebleu",
        description="CodeBLEU of a hypothesis file against reference files, one snippet per "
        "line (CodeXGLUE's calc_code_bleu.py command line, the codebleu package's numbers).",
    )
    parser.add_argument("--refs", nargs="+", required=True, help="reference files")
    parser.add_argument("--hyp", required=True, help="hypothesis file")
    parser.add_argument(
        "--lang", required=True,
        help=f"programming language: {', '.join(codebleu_languages())} (or an alias such as js)",
    )
    parser.add_argument("--params", default="0.25,0.25,0.25,0.25",
                        help="alpha,beta,gamma,theta: the weights of the four components")
    parser.add_argument("--dataflow", choices=DATAFLOW_MODES, default="package",
                        help="a dataflow score of 0: 'package' counts it as 1 (codebleu "
                        "package, default), 'zero' as 0 (CodeXGLUE), 'renormalize' drops it")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        weights = tuple(float(x) for x in args.params.split(","))
    except ValueError:
        parser.error(f"--params must be four comma-separated numbers, got {args.params!r}")
    if len(weights) != 4:
        parser.error(f"--params must be four comma-separated numbers, got {args.params!r}")
    try:
        lang = codebleu_language(args.lang).name
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    try:
        hypothesis = read_lines(args.hyp)
        per_file = [read_lines(path) for path in args.refs]
    except (OSError, UnicodeDecodeError) as error:
        parser.error(f"cannot read {getattr(error, 'filename', None) or 'a file'}: {error}")
    for path, lines in zip(args.refs, per_file, strict=True):
        if len(lines) != len(hypothesis):
            parser.error(
                f"{path} has {len(lines)} lines but {args.hyp} has {len(hypothesis)}; every "
                "reference file needs one line per hypothesis line"
            )
    if not hypothesis:
        parser.error(f"{args.hyp} is empty")
    references = [list(refs) for refs in zip(*per_file, strict=True)]
    try:
        result = compute_codebleu(hypothesis, references, lang=lang, weights=weights,
                                  dataflow=args.dataflow)
    except (TypeError, ValueError) as error:
        parser.error(str(error))
    print(
        f"ngram match: {result['ngram_match_score']}, "
        f"weighted ngram match: {result['weighted_ngram_match_score']}, "
        f"syntax_match: {result['syntax_match_score']}, "
        f"dataflow_match: {result['dataflow_match_score']}"
    )
    print("CodeBLEU score: ", result["codebleu"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
