"""WordNet 3.0 for METEOR, installed once and never downloaded at run time.

nltk's METEOR matches synonyms through WordNet, and its scores change without it, so
:class:`~cgm_metrics.maths.classic.MeteorMetric` refuses to run on a missing or different WordNet
instead of falling back silently.

Setup on Debian or Ubuntu (the Princeton WordNet 3.0 database, packaged by Debian)::

    apt-get install --no-install-recommends wordnet-base wordnet-sense-index
    python -m cgm_metrics.maths.classic.wordnet install

``install`` copies the database files nltk reads into ``<NLTK_DATA>/corpora/wordnet``
(the first folder of ``nltk.data.path``, usually ``~/nltk_data``; ``--target`` chooses
another) and writes the ``lexnames`` table that Debian does not ship, as WordNet's
``lexnames(5WN)`` documentation defines it. ``--source`` takes any WordNet 3.0 ``dict``
folder instead of Debian's (``WNSEARCHDIR`` and ``WNHOME`` are honoured too). A WordNet 3.0
installed by ``nltk.download("wordnet")`` works as well.

``python -m cgm_metrics.maths.classic.wordnet status`` tells which WordNet METEOR would use.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import shutil
import sys
import tempfile
import threading
import warnings
from pathlib import Path
from typing import Any

from ...base.errors import MetricUnavailableError

WORDNET_VERSION = "3.0"

#: The lexicographer files of WordNet 3.0: (name, syntactic category), numbered from 00,
#: as listed in WordNet's lexnames(5WN) documentation.
LEXNAMES: tuple[tuple[str, int], ...] = (
    ("adj.all", 3),
    ("adj.pert", 3),
    ("adv.all", 4),
    ("noun.Tops", 1),
    ("noun.act", 1),
    ("noun.animal", 1),
    ("noun.artifact", 1),
    ("noun.attribute", 1),
    ("noun.body", 1),
    ("noun.cognition", 1),
    ("noun.communication", 1),
    ("noun.event", 1),
    ("noun.feeling", 1),
    ("noun.food", 1),
    ("noun.group", 1),
    ("noun.location", 1),
    ("noun.motive", 1),
    ("noun.object", 1),
    ("noun.person", 1),
    ("noun.phenomenon", 1),
    ("noun.plant", 1),
    ("noun.possession", 1),
    ("noun.process", 1),
    ("noun.quantity", 1),
    ("noun.relation", 1),
    ("noun.shape", 1),
    ("noun.state", 1),
    ("noun.substance", 1),
    ("noun.time", 1),
    ("verb.body", 2),
    ("verb.change", 2),
    ("verb.cognition", 2),
    ("verb.communication", 2),
    ("verb.competition", 2),
    ("verb.consumption", 2),
    ("verb.contact", 2),
    ("verb.creation", 2),
    ("verb.emotion", 2),
    ("verb.motion", 2),
    ("verb.perception", 2),
    ("verb.possession", 2),
    ("verb.social", 2),
    ("verb.stative", 2),
    ("verb.weather", 2),
    ("adj.ppl", 3),
)

#: The database files nltk's WordNet reader opens (``lexnames`` is generated).
DATABASE_FILES: tuple[str, ...] = (
    "data.adj",
    "data.adv",
    "data.noun",
    "data.verb",
    "index.adj",
    "index.adv",
    "index.noun",
    "index.verb",
    "adj.exc",
    "adv.exc",
    "noun.exc",
    "verb.exc",
    "cntlist.rev",
    "index.sense",
)

LICENSE_NOTICE = """\
WordNet Release 3.0

This software and database is being provided to you, the LICENSEE, by Princeton
University under the following license. By obtaining, using and/or copying this
software and database, you agree that you have read, understood, and will comply
with these terms and conditions.:

Permission to use, copy, modify and distribute this software and database and its
documentation for any purpose and without fee or royalty is hereby granted, provided
that you agree to comply with the following copyright notice and statements,
including the disclaimer, and that the same appear on ALL copies of the software,
database and documentation, including modifications that you make for internal use
or for distribution.

WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved.

THIS SOFTWARE AND DATABASE IS PROVIDED "AS IS" AND PRINCETON UNIVERSITY MAKES NO
REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT
LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANT-
ABILITY OR FITNESS FOR ANY PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED
SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD PARTY PATENTS,
COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS.

The name of Princeton University or Princeton may not be used in advertising or
publicity pertaining to distribution of the software and/or database. Title to
copyright in this software, database and any associated documentation shall at all
times remain with Princeton University and LICENSEE agrees to preserve same.
"""

SETUP_HINT = (
    "Install it once (no download at run time): on Debian/Ubuntu run "
    "`apt-get install --no-install-recommends wordnet-base wordnet-sense-index` and then "
    "`python -m cgm_metrics.maths.classic.wordnet install`; elsewhere run "
    "`python -m cgm_metrics.maths.classic.wordnet install --source DIR` with DIR a WordNet 3.0 "
    "`dict` folder, or `python -m nltk.downloader wordnet` where a network is available."
)

_DEBIAN_SOURCE = Path("/usr/share/wordnet")
_VERSION = re.compile(r"Word[nN]et (\d+\+?|\d+\.\d+) Copyright")


class WordNetNotFoundError(MetricUnavailableError, LookupError):
    """WordNet 3.0 is not installed where nltk looks; the message gives the fix."""


def lexnames_text() -> str:
    """The ``lexnames`` file: ``NN<TAB>name<TAB>category`` per line, numbered from 00."""
    return "".join(f"{i:02d}\t{name}\t{cat}\n" for i, (name, cat) in enumerate(LEXNAMES))


def default_source() -> Path:
    """Where ``install`` reads the WordNet database: WNSEARCHDIR, WNHOME/dict or Debian's."""
    if os.environ.get("WNSEARCHDIR"):
        return Path(os.environ["WNSEARCHDIR"])
    if os.environ.get("WNHOME"):
        return Path(os.environ["WNHOME"]) / "dict"
    return _DEBIAN_SOURCE


def default_target() -> Path:
    """The nltk data folder ``install`` writes to: the first entry of ``nltk.data.path``."""
    import nltk.data

    for entry in nltk.data.path:
        if isinstance(entry, str) and not entry.endswith(".zip"):
            return Path(entry).expanduser()
    return Path.home() / "nltk_data"


def _read_version(data_adj: Path) -> str | None:
    """The release named in the licence header of ``data.adj`` (as nltk reads it)."""
    with open(data_adj, encoding="utf-8", errors="replace") as handle:
        for line in itertools.islice(handle, 40):
            match = _VERSION.search(line)
            if match:
                return match.group(1)
    return None


def install(
    target: str | os.PathLike | None = None,
    source: str | os.PathLike | None = None,
    force: bool = False,
) -> Path:
    """Build ``<target>/corpora/wordnet`` from a WordNet 3.0 database folder; return it.

    Files are copied (nltk refuses symlinks that leave its data folder) into a temporary
    folder beside the destination and moved into place, so a half-built corpus is never
    seen. An existing corpus is kept unless ``force``.
    """
    source_dir = Path(source) if source is not None else default_source()
    target_root = Path(target) if target is not None else default_target()
    destination = target_root / "corpora" / "wordnet"
    missing = [name for name in DATABASE_FILES if not (source_dir / name).is_file()]
    if missing:
        raise WordNetNotFoundError(
            f"The WordNet database in {source_dir} lacks {', '.join(missing)}. " + SETUP_HINT
        )
    version = _read_version(source_dir / "data.adj")
    if version != WORDNET_VERSION:
        raise WordNetNotFoundError(
            f"{source_dir} holds WordNet {version or '(unknown version)'}, but METEOR as "
            f"published needs WordNet {WORDNET_VERSION}. {SETUP_HINT}"
        )
    if destination.exists() and not force:
        return destination
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".wordnet-", dir=destination.parent))
    try:
        for name in DATABASE_FILES:
            shutil.copyfile(source_dir / name, staging / name)
        (staging / "lexnames").write_text(lexnames_text(), encoding="utf-8")
        (staging / "LICENSE").write_text(LICENSE_NOTICE, encoding="utf-8")
        staging.chmod(0o755)
        if destination.exists():
            shutil.rmtree(destination)
        try:
            staging.rename(destination)
        except OSError:
            if not destination.exists():  # not a concurrent install that won the race
                raise
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    return destination


_READERS: dict[str, Any] = {}
_LOCK = threading.Lock()


def _reader_class() -> type:
    """nltk's ``WordNetCorpusReader`` for English WordNet 3.0 without two costs METEOR never
    uses: the mapping to other WordNet versions for the Open Multilingual Wordnet (built on
    every load by reading ``index.sense`` twice, more than half of the load time; with no
    multilingual reader it is never consulted) and nltk's pure-Python line reader for files
    in a folder (Python's own buffered text files read the same lines, several times
    faster). Every lemma, synset and offset is the one nltk's reader gives."""
    from nltk.corpus.reader.wordnet import WordNetCorpusReader
    from nltk.data import FileSystemPathPointer

    class EnglishWordNetReader(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> Any:
            if self._omw_reader is None:
                return None
            return super().map_wn(version)

        def open(self, file: str) -> Any:
            if isinstance(self._root, FileSystemPathPointer) and file in _PLAIN_FILES:
                # the lines exactly as nltk reads them: utf-8, no newline translation;
                # seek() takes the byte offsets of WordNet's index files
                return open(  # noqa: SIM115 - nltk keeps and closes these handles
                    os.path.join(self._root.path, file), encoding=self._ENCODING, newline=""
                )
            return super().open(file)

        def _load_lemma_pos_offset_map(self) -> None:
            # nltk's parser with one closure call per field, done with slices: the same map
            # (lemma -> pos -> synset offsets in file order, adjective satellites split out)
            from nltk.corpus.reader.wordnet import ADJ, ADJ_SAT, WordNetError

            lemma_map, satellites = self._lemma_pos_offset_map, self.satellite_offsets
            for suffix in self._FILEMAP.values():
                with self.open(f"index.{suffix}") as lines:
                    for number, line in enumerate(lines, 1):
                        if line.startswith(" "):
                            continue
                        fields = line.split()
                        try:
                            lemma, pos, n_synsets, n_pointers = fields[:4]
                            n_synsets, start = int(n_synsets), 6 + int(n_pointers)
                            if n_synsets <= 0 or int(fields[start - 2]) != n_synsets:
                                raise ValueError("synset and sense counts differ")
                            offsets = [int(field) for field in fields[start : start + n_synsets]]
                            if len(offsets) != n_synsets:
                                raise ValueError("too few synset offsets")
                        except (IndexError, ValueError) as error:
                            raise WordNetError(f"file index.{suffix}, line {number}: {error}") from error
                        lemma_map[lemma][pos] = offsets
                        if pos == ADJ:
                            lemma_map[lemma][ADJ_SAT] = [o for o in offsets if o in satellites]

    return EnglishWordNetReader


#: Files of a WordNet folder read with Python's own text files (fixed names, no user path).
_PLAIN_FILES = frozenset(DATABASE_FILES) | {"lexnames"}


def _locate() -> Any:
    """nltk's path pointer to ``corpora/wordnet`` (folder or zip), or a clear error."""
    import nltk.data

    try:
        return nltk.data.find("corpora/wordnet")
    except LookupError:
        searched = ", ".join(str(entry) for entry in nltk.data.path)
        raise WordNetNotFoundError(
            "METEOR needs the WordNet 3.0 database, which nltk cannot find (searched "
            f"corpora/wordnet under: {searched}; set NLTK_DATA to add a folder). Scores "
            f"without WordNet differ from the published ones, so there is no fallback. "
            f"{SETUP_HINT}"
        ) from None


def load_wordnet() -> Any:
    """nltk's ``WordNetCorpusReader`` on WordNet 3.0, loaded once per process and folder.

    nltk's usual search finds it (``NLTK_DATA``, then ``~/nltk_data`` and the other
    folders of ``nltk.data.path``). Raises :class:`WordNetNotFoundError`, naming the fix,
    when it is missing or is not WordNet 3.0.
    """
    pointer = _locate()
    key = str(getattr(pointer, "path", pointer))
    with _LOCK:
        reader = _READERS.get(key)
        if reader is None:
            with warnings.catch_warnings():
                # "The multilingual functions are not available": METEOR uses English only.
                warnings.simplefilter("ignore")
                reader = _reader_class()(pointer, None)
            version = reader.get_version()
            if version != WORDNET_VERSION:
                raise WordNetNotFoundError(
                    f"The WordNet at {key} is version {version}, but METEOR as published "
                    f"needs WordNet {WORDNET_VERSION}. {SETUP_HINT}"
                )
            _READERS[key] = reader
    return reader


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m cgm_metrics.maths.classic.wordnet",
        description="Set up WordNet 3.0 for the METEOR metric without a run-time download.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    install_cmd = commands.add_parser(
        "install", help="build <NLTK_DATA>/corpora/wordnet from a WordNet 3.0 database"
    )
    install_cmd.add_argument(
        "--source", default=None, help=f"WordNet 3.0 dict folder (default: {default_source()})"
    )
    install_cmd.add_argument(
        "--target", default=None, help="nltk data folder (default: first of nltk.data.path)"
    )
    install_cmd.add_argument("--force", action="store_true", help="rebuild an existing corpus")
    commands.add_parser("status", help="show which WordNet METEOR would use")
    args = parser.parse_args(argv)
    try:
        if args.command == "install":
            destination = install(args.target, args.source, force=args.force)
            print(f"WordNet {WORDNET_VERSION} ready in {destination}")
        else:
            reader = load_wordnet()
            print(f"WordNet {reader.get_version()} at {reader.root}")
    except WordNetNotFoundError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
