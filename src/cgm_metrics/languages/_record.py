"""Immutable rows that behave as ``typing.NamedTuple`` classes (the same fields, defaults,
constructor, ``_replace``, ``_asdict``, ``_make``, ``_fields``, repr, pickling, tuple
equality), built without compiling code per class.

``typing.NamedTuple`` compiles a ``__new__`` for every class (``collections.namedtuple``
evaluates its source): for the parts of the languages, twelve classes of up to 33 fields,
that was most of the import of :mod:`.parts`, a fifth of a first CodeBLEU call. Here every
class shares one ``__new__`` that binds its arguments from the field list.

Type checkers see ``typing.NamedTuple`` itself (``TYPE_CHECKING``), so the classes are
checked as named tuples.
"""

from operator import itemgetter
from typing import Any

try:  # the C accessor collections.namedtuple uses for its fields
    from _collections import _tuplegetter
except ImportError:  # pragma: no cover - other Pythons

    def _tuplegetter(index: int, doc: str) -> Any:
        return property(itemgetter(index), doc=doc)


class _RecordType(type):
    """Reads the fields of a class declared on :class:`Record` from its annotations, in order,
    with their defaults (class attributes), and makes each field a read-only accessor."""

    def __new__(mcls, name: str, bases: tuple[type, ...], namespace: dict[str, Any]) -> Any:
        namespace.setdefault("__slots__", ())  # no instance dictionary, as a named tuple
        declares = any(base.__dict__.get("_record_base", False) for base in bases)
        fields: tuple[str, ...] = ()
        defaults: dict[str, Any] = {}
        if declares:
            fields = tuple(namespace.get("__annotations__", {}))
            for index, field in enumerate(fields):
                if field.startswith("_"):
                    raise ValueError(f"{name}: field names cannot start with an underscore: "
                                     f"{field!r}")
                if field in namespace:
                    defaults[field] = namespace[field]
                elif defaults:
                    raise TypeError(f"{name}: non-default field {field!r} follows a default "
                                    "field")
                namespace[field] = _tuplegetter(index, f"Alias for field number {index}")
            namespace["_fields"] = fields
            namespace["_field_defaults"] = defaults
            namespace["__match_args__"] = fields
        return super().__new__(mcls, name, bases, namespace)


class Record(tuple, metaclass=_RecordType):  # noqa: SLOT001 - the metaclass sets __slots__
    """The base of a row: declare its fields as annotations (with defaults where wanted)."""

    _record_base = True
    _fields: tuple[str, ...] = ()
    _field_defaults: dict[str, Any] = {}

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        fields = cls._fields
        if len(args) > len(fields):
            raise TypeError(f"{cls.__name__}() takes {len(fields)} arguments but {len(args)} "
                            "were given")
        values = list(args)
        if kwargs or len(values) < len(fields):
            defaults = cls._field_defaults
            for field in fields[len(values):]:
                if field in kwargs:
                    values.append(kwargs.pop(field))
                elif field in defaults:
                    values.append(defaults[field])
                else:
                    raise TypeError(f"{cls.__name__}() missing required argument: {field!r}")
            if kwargs:
                extra = next(iter(kwargs))
                if extra in fields:
                    raise TypeError(f"{cls.__name__}() got multiple values for argument "
                                    f"{extra!r}")
                raise TypeError(f"{cls.__name__}() got an unexpected keyword argument "
                                f"{extra!r}")
        return tuple.__new__(cls, values)

    @classmethod
    def _make(cls, iterable: Any) -> Any:
        made = tuple.__new__(cls, iterable)
        if len(made) != len(cls._fields):
            raise TypeError(f"Expected {len(cls._fields)} arguments, got {len(made)}")
        return made

    def _replace(self, **changes: Any) -> Any:
        made = self._make(map(changes.pop, self._fields, self))
        if changes:
            raise ValueError(f"Got unexpected field names: {list(changes)!r}")
        return made

    def _asdict(self) -> dict[str, Any]:
        return dict(zip(self._fields, self, strict=True))

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in zip(self._fields, self,
                                                                    strict=True))
        return f"{type(self).__name__}({shown})"

    def __getnewargs__(self) -> tuple[Any, ...]:
        return tuple(self)
