"""Packaging beyond setup.cfg: the evaluate loading scripts and the compiled C library.

``metrics/<name>/`` (loading script, card, app.py, requirements.txt) stays the source of
truth; it is mapped to the package ``cgm_metrics.modules.<name>``, so a wheel or a plain
``pip install .`` holds ``cgm_metrics/modules/<name>/``, and ``cgm_metrics.module_path(name)``
finds it there (or in ``metrics/`` of a source checkout, for editable installs).

The C sources of ``src/cgm_metrics/maths/csrc`` and ``src/cgm_metrics/maths/*/csrc`` (CodeBLEU's engine, RUBY's program graphs and
tree edit distance, chrF's n-gram matches)
are compiled ahead of time into one shared library, ``cgm_metrics/_native.so`` (``.dll`` on
Windows), with the system's C compiler. It uses no Python API (it is loaded with ctypes),
so one build serves every Python version of a platform: wheels are tagged
``py3-none-<platform>``. Where no compiler works the install still succeeds, without the
library, and the metrics run their pure-Python implementations (same numbers, slower);
``CGM_REQUIRE_NATIVE=1`` makes a failed compile an error instead (release and CI builds).
"""

import importlib.util
import os
import sys
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
MODULES = sorted(
    path.name
    for path in (HERE / "metrics").iterdir()
    if path.is_dir() and (path / f"{path.name}.py").is_file()
)

# cgm_metrics/base/native.py (loaded as a file: the package is not importable at build time)
_spec = importlib.util.spec_from_file_location("_cgm_native", HERE / "src/cgm_metrics/base/native.py")
native = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(native)
PACKAGE = HERE / "src" / "cgm_metrics"
SOURCES = [
    Path(path).relative_to(HERE).as_posix()
    for path in native.source_files(str(PACKAGE))
    if path.endswith(".c")
]


class BuildNativeLibrary(build_ext):
    """Builds the C library as a plain shared library; a failed compile is a warning."""

    def get_ext_filename(self, fullname):
        return os.path.join(*fullname.split(".")[:-1], native.LIBRARY_NAME)

    def get_export_symbols(self, ext):
        return []  # the library exports its functions itself (CGM_API), it has no PyInit_

    def build_extension(self, ext):
        if self.compiler.compiler_type == "msvc":
            ext.extra_compile_args = ["/O2"]
        else:
            ext.extra_compile_args = ["-O2", "-std=c11", "-fvisibility=hidden"]
        ext.define_macros = [("CGM_BUILD_ID", f"0x{native.source_hash(str(PACKAGE))}ULL")]
        try:
            super().build_extension(ext)
        except Exception as error:  # no compiler, or it failed: the pure-Python engines
            if os.environ.get("CGM_REQUIRE_NATIVE", "") not in ("", "0"):
                raise
            print(
                f"WARNING: cgm-metrics: the C library could not be built ({error}); CodeBLEU and "
                "RUBY will use their pure-Python engines (same numbers, slower).",
                file=sys.stderr,
            )

    def run(self):
        try:
            super().run()
        except Exception as error:  # e.g. no compiler configured at all
            if os.environ.get("CGM_REQUIRE_NATIVE", "") not in ("", "0"):
                raise
            print(f"WARNING: cgm-metrics: no C library built ({error}).", file=sys.stderr)


commands = {"build_ext": BuildNativeLibrary}
try:  # the library is independent of the Python version: wheels are py3-none-<platform>
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        def get_tag(self):
            _, _, platform = super().get_tag()
            return "py3", "none", platform

    commands["bdist_wheel"] = PlatformWheel
except ImportError:
    pass

# An editable install (`pip install -e .`) finds the modules in metrics/ beside src/ (see
# cgm_metrics/base/loading.py): mapping them into the package there would make setuptools install a
# meta path finder, and warn about it on every install, for nothing.
EDITABLE = "editable_wheel" in sys.argv
SHIPPED_MODULES = [] if EDITABLE else MODULES

setup(
    # data folders are (namespace) packages of their own, so setuptools ships their files as
    # package data; the C sources (csrc/) go to the sdist only (MANIFEST.in), never to a wheel
    packages=[
        *find_namespace_packages("src", include=["cgm_metrics*"], exclude=["*.csrc"]),
        *(f"cgm_metrics.modules.{name}" for name in SHIPPED_MODULES),
    ],
    package_dir={"": "src", **({} if EDITABLE else {"cgm_metrics.modules": "metrics"})},
    package_data={
        "cgm_metrics.data.demo": ["*.json"],
        **{f"cgm_metrics.modules.{name}": ["*.md", "*.txt"] for name in SHIPPED_MODULES},
    },
    ext_modules=[Extension("cgm_metrics._native", sources=SOURCES)],
    cmdclass=commands,
)
