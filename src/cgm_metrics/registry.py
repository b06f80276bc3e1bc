"""One registry of metrics, looked up by name by every consumer (the evaluation pipeline, the
CLI, the Space, the significance engine, the agreement analysis).

A name points at a :class:`~cgm_metrics.metric.Metric` subclass as ``"module:Class"``. The
built-in metrics are the table below; another package adds one with an entry point of the
group ``cgm_metrics.metrics`` (``name = "module:Class"``). Both go through the same loader
(:func:`metric_class`), so adding a built-in metric is one line here and adding a plugin one
line in its own package. The class carries its metadata (display name, scale, direction,
description, languages, whether it runs code, cost): nothing else needs to know about it.

Plugins are discovered on first use of the registry (not on ``import cgm_metrics``); a
plugin whose name is built in, or that fails to load, is reported and left out.
"""

from __future__ import annotations

import inspect
import threading
import warnings
from typing import TYPE_CHECKING, Any

from .core.inputs import did_you_mean
from .plugins import METRICS_GROUP, entry_points, load

if TYPE_CHECKING:
    from .metric import Metric, MetricFlag

#: the built-in metrics, read by the same loader as the entry points of other packages
BUILTIN_METRICS: dict[str, str] = {
    "chrf_code": "cgm_metrics.maths.chrf:ChrfCodeMetric",
    "codebleu": "cgm_metrics.maths.codebleu:CodeBleuMetric",
    "ruby": "cgm_metrics.maths.ruby:RubyMetric",
    "edit_sim": "cgm_metrics.maths.edit_sim:EditSimMetric",
    "bleu": "cgm_metrics.maths.classic:BleuMetric",
    "rouge_l": "cgm_metrics.maths.classic:RougeLMetric",
    "rouge_n": "cgm_metrics.maths.classic:RougeNMetric",
    "rouge_w": "cgm_metrics.maths.classic:RougeWMetric",
    "meteor": "cgm_metrics.maths.classic:MeteorMetric",
    "tsed": "cgm_metrics.maths.tsed:TsedMetric",
    "crystal_bleu": "cgm_metrics.maths.crystal_bleu:CrystalBleuMetric",
    "codexglue_edit_sim": "cgm_metrics.maths.codexglue:CodeXGlueEditSimMetric",
    "pass@1": "cgm_metrics.execution.metrics:PassAt1",
    "pass@10": "cgm_metrics.execution.metrics:PassAt10",
    "pass@100": "cgm_metrics.execution.metrics:PassAt100",
    "combined": "cgm_metrics.execution.metrics:CombinedMetric",
    "tests_passed": "cgm_metrics.execution.metrics:TestsPassed",
}

#: the metrics computed when none are named (``cgm score``, the pipeline, the agreement
#: analysis, the Space's systems tab): the three the studies of code metrics recommend
DEFAULT_METRICS: tuple[str, ...] = ("chrf_code", "codebleu", "ruby")

#: built-in families of metrics named by a number (``pass@5``): a name's pattern, and the
#: factory that makes the class of a name that matches it
METRIC_FAMILIES: dict[str, str] = {
    r"pass@[1-9][0-9]{0,5}": "cgm_metrics.execution.metrics:pass_at_k_class",
}

_TABLE: dict[str, Any] | None = None  # name -> "module:Class" or an entry point
_CLASSES: dict[str, type[Metric]] = {}
_LOCK = threading.RLock()


def _table() -> dict[str, Any]:
    """Built-in names and the names of installed plugins (read once)."""
    global _TABLE
    with _LOCK:
        if _TABLE is None:
            table: dict[str, Any] = dict(BUILTIN_METRICS)
            for name, point in entry_points(METRICS_GROUP).items():
                if name in table:
                    warnings.warn(f"metric plugin {name} = {point.value} left out: {name!r} is "
                                  "a built-in metric.", RuntimeWarning, stacklevel=3)
                    continue
                table[name] = point
            _TABLE = table
        return _TABLE


def metrics() -> list[str]:
    """The names of every registered metric (built-in and plugins), sorted."""
    return sorted(_table())


def _family(name: str) -> str | None:
    """The factory of the family ``name`` belongs to (``pass@5``), or None."""
    import re

    if not isinstance(name, str):
        return None
    return next((factory for pattern, factory in METRIC_FAMILIES.items()
                 if re.fullmatch(pattern, name)), None)


def is_metric(name: str) -> bool:
    """True when ``name`` names a metric: registered, or of a built-in family (``pass@5``)."""
    return isinstance(name, str) and (name in _table() or _family(name) is not None)


def is_plugin(name: str) -> bool:
    """True when ``name`` comes from another package's entry point."""
    return name in _table() and name not in BUILTIN_METRICS


def metric_class(name: str) -> type[Metric]:
    """The class registered as ``name``. An unknown name is a ``ValueError`` listing the
    metrics; a target that cannot be imported, or is not a proper :class:`Metric`, an
    ``ImportError`` saying which and why."""
    table = _table()
    if not is_metric(name):
        raise ValueError(f"Unknown metric {name!r}.{did_you_mean(name, metrics())} "
                         f"Available metrics: {', '.join(metrics())} "
                         "(and pass@k for any k).")
    with _LOCK:
        if name in _CLASSES:
            return _CLASSES[name]
        target: Any = table[name] if name in table else _family(name)
        if name not in table:
            import importlib

            module_name, factory = str(target).split(":")
            cls = getattr(importlib.import_module(module_name), factory)(name)
        elif isinstance(target, str):
            import importlib

            module_name, class_name = target.split(":")
            cls = getattr(importlib.import_module(module_name), class_name)
        else:
            cls = load(target)
        problem = _class_problem(name, cls)
        if problem:
            raise ImportError(f"metric {name!r} ({getattr(target, 'value', target)}) cannot be "
                              f"used: {problem}")
        _CLASSES[name] = cls
        return cls


def _class_problem(name: str, cls: Any) -> str | None:
    """What is wrong with a registered class, or None."""
    from .metric import Metric

    if not (isinstance(cls, type) and issubclass(cls, Metric)):
        return (f"it is {cls!r}, not a subclass of cgm_metrics.metric.Metric (or MeanOfItems)")
    if getattr(cls, "name", None) != name:
        return f"its class attribute `name` is {getattr(cls, 'name', None)!r}, not {name!r}"
    if inspect.isabstract(cls):
        missing = ", ".join(sorted(getattr(cls, "__abstractmethods__", ())))
        return f"it does not implement {missing}"
    scale = getattr(cls, "scale", None)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
        return f"its `scale` must be a positive number (1 or 100), got {scale!r}"
    languages = cls.languages
    if languages is not None and (
        not isinstance(languages, tuple) or not all(isinstance(x, str) for x in languages)
    ):
        return f"its `languages` must be a tuple of language names or None, got {languages!r}"
    if "lang" not in metric_parameters(cls):
        return "its constructor must take `lang`"
    return None


def metric_flags(name: str) -> tuple[MetricFlag, ...]:
    """The command-line flags the metric ``name`` declares (its class attribute
    ``cli_flags``). A built-in metric's are read from its class's source when the class is
    written there plainly, which spares ``cgm score --help`` importing every metric (seconds);
    otherwise, and for plugins, from the class itself."""
    target = BUILTIN_METRICS.get(name)
    if target is not None:
        declared = _flags_in_source(*target.split(":"))
        if declared is not None:
            return declared
    return tuple(metric_class(name).cli_flags)


_CONTRACT = ("Metric", "MeanOfItems")
_SOURCES: dict[Any, Any] = {}  # path -> its syntax tree, while the CLI reads the flags


def _flags_in_source(module: str, class_name: str) -> tuple[MetricFlag, ...] | None:
    """``cli_flags`` of the class ``class_name`` of the built-in ``module``, from its source
    (following one relative import of the name); None when it is not written there plainly (a
    class made by a function, a base class of another module, flags that are not a tuple of
    ``MetricFlag(...)`` of constants)."""
    import ast
    import re
    from pathlib import Path

    from .metric import MetricFlag

    root = Path(__file__).parent
    parts = module.split(".")[1:]
    path = root.joinpath(*parts)
    path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    for _ in range(2):
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            return None
        if "cli_flags" not in text and re.search(
                rf"^class {re.escape(class_name)}\((Metric|MeanOfItems)\):", text, re.M):
            return ()  # written here, on the contract's classes, without flags
        tree = _SOURCES.get(path)
        if tree is None:
            tree = _SOURCES[path] = ast.parse(text)
        classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)}
        node = classes.get(class_name)
        while node is not None:
            for statement in node.body:
                targets = (statement.targets if isinstance(statement, ast.Assign) else
                           [statement.target] if isinstance(statement, ast.AnnAssign) else [])
                if any(isinstance(t, ast.Name) and t.id == "cli_flags" for t in targets):
                    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) \
                            or statement.value is None:
                        return None
                    try:
                        value = eval(compile(ast.Expression(statement.value), str(path), "eval"),
                                     {"__builtins__": {}, "MetricFlag": MetricFlag})
                    except Exception:  # noqa: BLE001 - not plain constants: ask the class
                        return None
                    ok = isinstance(value, tuple) and all(isinstance(f, MetricFlag)
                                                          for f in value)
                    return value if ok else None
            bases = [b.id if isinstance(b, ast.Name) else None for b in node.bases]
            if len(bases) != 1 or bases[0] is None:
                return None
            if bases[0] in _CONTRACT:
                return ()
            node = classes.get(bases[0])
        if class_name in classes:
            return None  # a base class from elsewhere
        made = any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                   and any(isinstance(t, ast.Name) and t.id == class_name for t in node.targets)
                   for node in tree.body)
        if made and "cli_flags" not in text and all(
                all(isinstance(b, ast.Name) and (b.id in classes or b.id in _CONTRACT)
                    for b in node.bases) for node in classes.values()):
            return ()  # made by a function of this module from its classes, none with flags
        source = next((node for node in ast.walk(tree)
                       if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module
                       and any(a.name == class_name and a.asname is None for a in node.names)),
                      None)
        if source is None or source.module is None:
            return None
        path = path.parent.joinpath(*source.module.split("."))
        path = path / "__init__.py" if path.is_dir() else path.with_suffix(".py")
    return None


def metric_parameters(cls: type) -> dict[str, Any]:
    """The constructor options of a metric class and their defaults
    (``inspect.Parameter.empty`` for a required one)."""
    parameters = inspect.signature(cls).parameters
    return {
        key: parameter.default
        for key, parameter in parameters.items()
        if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD,
                                                 parameter.KEYWORD_ONLY)
    }


def metric_options(name: str) -> dict[str, Any]:
    """The options of metric ``name`` and their defaults, as its constructor declares them."""
    return metric_parameters(metric_class(name))


def check_language_support(cls: type[Metric], lang: Any) -> str | None:
    """The canonical name of ``lang`` when the metric ``cls`` can score it (None when ``lang``
    is None and the metric needs none). A metric that covers only some languages
    (``cls.languages`` is a tuple) needs ``lang``: never a silent default."""
    from .errors import UnsupportedLanguageError
    from .languages import DEFAULT_LANGUAGE, resolve_language

    if lang is None:
        if cls.languages is not None:
            raise UnsupportedLanguageError(
                f"{cls.display_name or cls.name} needs `lang`: one of "
                f"{', '.join(cls.languages)}; e.g. lang="
                f"{DEFAULT_LANGUAGE if DEFAULT_LANGUAGE in cls.languages else cls.languages[0]!r}."
            )
        return None
    spec = resolve_language(lang)
    if cls.languages is not None and spec.name not in cls.languages:
        raise UnsupportedLanguageError(
            f"{cls.display_name or cls.name} does not support lang={spec.name!r}. Supported "
            f"languages: {', '.join(cls.languages)}."
        )
    return spec.name


def get_metric(name: str, **options: Any) -> Metric:
    """The metric ``name`` bound to ``options`` (e.g. ``lang="python"``).

    Options are checked against the ones the metric declares (its constructor's signature):
    an unknown option is a ``ValueError`` listing them. Every metric takes ``lang`` and
    rejects an unknown language; a metric that covers only some languages (CodeBLEU)
    requires it and names the ones it covers.
    """
    cls = metric_class(name)
    declared = metric_parameters(cls)
    unknown = sorted(set(options) - set(declared))
    if unknown:
        listing = ", ".join(f"{key}={value!r}" for key, value in declared.items())
        raise ValueError(
            f"Unknown option {', '.join(repr(key) for key in unknown)} for metric {name!r}."
            f"{did_you_mean(unknown[0], declared)} Its options (with defaults): {listing}."
        )
    if "lang" in options or cls.languages is not None:
        lang = options.get("lang")
        if not isinstance(lang, (list, tuple)):  # k4black's one-element list: the metric checks
            check_language_support(cls, lang)
    metric = cls(**options)
    metric.init_options = dict(options)
    return metric
