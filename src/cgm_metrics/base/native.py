"""The project's compiled library: CodeBLEU's engine, RUBY's program graphs and tree edit
distance, and chrF's character n-gram matches, in C.

``pip install`` compiles it ahead of time with the system's C compiler (``setup.py``); it
needs no Python headers and is loaded with ctypes, so nothing is compiled or cached at run
time and a read-only install works the same. Without a compiler the install still succeeds
and the metrics run their pure-Python implementations, with the same numbers (slower; the
CodeBLEU page of the documentation gives the figures). Published wheels carry the library for each platform.

In a source checkout the library is checked against its C sources: a library built from
older sources is not used (a warning says to rebuild with ``pip install -e .``), never run
silently.
"""

from __future__ import annotations

import ctypes
import os
import sys

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARY_NAME = "_native.dll" if sys.platform == "win32" else "_native.so"
# the C sources of the library, relative to the package (in the sdist, not in wheels)
SOURCE_FOLDERS = ("maths/codebleu/csrc", "maths/ruby/csrc", "maths/csrc")

_state: dict[str, object] = {}


def source_files(package: str = PACKAGE) -> list[str]:
    """The library's C sources and headers under ``package``, in a fixed order."""
    found: list[str] = []
    for folder in SOURCE_FOLDERS:
        path = os.path.join(package, *folder.split("/"))
        if os.path.isdir(path):
            found += sorted(
                os.path.join(path, name) for name in os.listdir(path) if name.endswith((".c", ".h"))
            )
    return found


def source_hash(package: str = PACKAGE) -> str:
    """A hash of the C sources: the build id that setup.py compiles into the library."""
    import hashlib

    digest = hashlib.sha256()
    for path in source_files(package):
        digest.update(os.path.relpath(path, package).replace(os.sep, "/").encode())
        digest.update(b"\0")
        with open(path, "rb") as handle:
            digest.update(handle.read().replace(b"\r\n", b"\n"))
    return digest.hexdigest()[:16]


def _load() -> ctypes.CDLL | None:
    path = os.path.join(PACKAGE, LIBRARY_NAME)
    if not os.path.isfile(path):
        _state["reason"] = (
            "the C library was not built at install time (no C compiler was found); install a "
            "C compiler (gcc, clang or MSVC) and reinstall cgm-metrics for the compiled engines"
        )
        return None
    try:
        library = ctypes.CDLL(path)
        library.cgm_build_id.restype = ctypes.c_uint64
        built_from = format(library.cgm_build_id(), "016x")
    except (OSError, AttributeError) as error:
        _state["reason"] = f"the C library {path} cannot be loaded: {error}"
        return None
    if source_files() and built_from != source_hash():
        import warnings

        _state["reason"] = f"{path} was built from older C sources; rebuild it: pip install -e ."
        warnings.warn(f"cgm-metrics: {_state['reason']} (the pure-Python engines run meanwhile)",
                      RuntimeWarning, stacklevel=3)
        return None
    return library


def library() -> ctypes.CDLL | None:
    """The loaded library, or None when it is not available (see :func:`unavailable_reason`)."""
    if "library" not in _state:
        _state["library"] = _load()
    return _state["library"]  # type: ignore[return-value]


def unavailable_reason() -> str | None:
    """Why :func:`library` is None (None when it is available)."""
    return None if library() is not None else str(_state.get("reason"))
