"""The cache's file format: JSON that is rebuilt into values, never run.

A cache directory may come from anywhere (a cloned repository, an archive), so reading it
must not be able to run code, as ``pickle`` does (a ``__reduce__`` calls any function).
This format is JSON, read by ``json.loads``, with tagged objects for what JSON lacks:

* ``{"t": [...]}`` a tuple, ``{"f": [...]}`` a frozenset, ``{"s": [...]}`` a set,
  ``{"d": [k1, v1, k2, v2, ...]}`` a dict (any hashable keys);
* ``{"c": [i, v1, v2, ...]}`` an instance of the ``i``-th class of the file's class table
  (its fields in declaration order), ``{"r": n}`` the ``n``-th instance again (shared
  values stay shared), ``{"n": i}`` the ``i``-th named constant (``EMPTY_SUMMARY``: the
  engine compares it by identity);
* ``{"a": [i, v1, ...]}`` a syntax node (``ast``), its fields and positions.

A class is rebuilt only if it is a dataclass (or ``FunctionRecord``) of an already
imported ``device_types`` module, or an ``ast`` node class; its fields are set on
``object.__new__(cls)`` without calling any of its methods. Nothing is imported and
nothing is called by name. Anything unexpected (an unknown tag, a class outside that
list, the wrong number of fields, bad JSON) raises ``CodecError``: the caller's cache miss.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

__all__ = ["CodecError", "Decoder", "Encoder", "dumps", "loads"]

MAGIC = b"device-types-cache 1\n"


class CodecError(ValueError):
    """The data is not what this format writes: treat it as absent."""


def _fields(cls: type) -> tuple[str, ...] | None:
    """The attributes an instance of ``cls`` is rebuilt from; None: not a class we rebuild."""
    known = _FIELDS.get(cls)
    if known is not None:
        return known
    names: tuple[str, ...] | None = None
    if isinstance(cls, type) and issubclass(cls, ast.AST) and getattr(ast, cls.__name__, None) is cls:
        names = tuple(cls._fields) + tuple(getattr(cls, "_attributes", ()))
    elif (isinstance(cls, type) and cls.__module__.split(".")[0] == "device_types"
          and sys.modules.get(cls.__module__) is not None
          and getattr(sys.modules[cls.__module__], cls.__qualname__, None) is cls):
        if dataclasses.is_dataclass(cls):
            names = tuple(f.name for f in dataclasses.fields(cls))
        else:
            names = getattr(cls, "__cache_fields__", None)
    if names is not None:
        _FIELDS[cls] = names
    return names


_FIELDS: dict[type, tuple[str, ...]] = {}
_CHECKS: dict[type, tuple[Callable[[object], bool], ...]] = {}
Check = Callable[[object], bool]


def _any(value: object) -> bool:
    return True


def _call(check: Check, value: object) -> bool:
    return check(value)


def _checker(hint: object) -> Check:
    """A test of a value against a type hint (containers element by element; an instance of a
    rebuilt class by its class only: its own fields were tested when it was built)."""
    if hint is Any or hint is object:
        return _any
    if hint is None or hint is type(None):
        return lambda v: v is None
    if hint is float:
        return lambda v: type(v) is float or type(v) is int
    if hint is str or hint is bool:
        return hint.__instancecheck__
    if hint is int:
        return lambda v: type(v) is int or type(v) is bool
    if isinstance(hint, type):
        return hint.__instancecheck__
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is typing.Union or origin is types.UnionType:
        options = [_checker(a) for a in args]
        return lambda v: any(c(v) for c in options)
    if origin is typing.Literal:
        allowed = set(args)
        return lambda v: type(v) in (str, int, bool) and v in allowed
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            each = _checker(args[0])
            return lambda v: type(v) is tuple and all(each(x) for x in v)
        if args == ((),) or not args:
            return lambda v: type(v) is tuple
        parts = [_checker(a) for a in args]
        return lambda v: type(v) is tuple and len(v) == len(parts) and all(c(x) for c, x in zip(parts, v))
    if origin in (list, set, frozenset):
        each = _checker(args[0]) if args else _any
        return lambda v: type(v) is origin and all(each(x) for x in v)  # type: ignore[attr-defined]
    if origin is dict:
        key, item = (_checker(args[0]), _checker(args[1])) if args else (_any, _any)
        return lambda v: type(v) is dict and all(key(k) and item(x) for k, x in v.items())
    return _any


def _ast_field(value: object) -> bool:
    if value is None or type(value) in (str, int, float, bool, bytes, complex) or isinstance(value, ast.AST):
        return True
    return type(value) is list and all(x is None or isinstance(x, (ast.AST, str)) for x in value)


def _checks(cls: type, names: tuple[str, ...]) -> tuple[Check, ...]:
    found = _CHECKS.get(cls)
    if found is None:
        if issubclass(cls, ast.AST):
            found = tuple(_ast_field for _ in names)
        else:
            try:
                hints = typing.get_type_hints(cls)
            except Exception:  # noqa: BLE001 - a hint that does not resolve is not checked
                hints = {}
            found = tuple(_checker(hints.get(n, Any)) for n in names)
        _CHECKS[cls] = found
    return found
_CONSTANTS: dict[str, object] | None = None


def _constants() -> dict[str, object]:
    """Module-level instances of rebuilt classes (``EMPTY_SUMMARY``), by ``module:NAME``."""
    global _CONSTANTS
    if _CONSTANTS is None:
        found: dict[str, object] = {}
        for module_name, module in sorted(sys.modules.items()):
            if module is None or not module_name.startswith("device_types."):
                continue
            for name, value in sorted(vars(module).items()):
                if name.isupper() and not isinstance(value, type) and dataclasses.is_dataclass(value) \
                        and _fields(type(value)) is not None:
                    found.setdefault(f"{module_name}:{name}", value)
        _CONSTANTS = found
    return _CONSTANTS


class Encoder:
    """Values to JSON text; the class table and the constants it used are kept for the header."""

    def __init__(self, seed: Decoder | None = None) -> None:
        #: The decoder whose tables this encoder starts from: a document that decoder reads
        #: reads the same in the new file (``FunctionRecord.stored`` copies such text as is).
        self.seed = seed
        self.classes: list[str] = []
        self._class_ids: dict[type, int] = {}
        self.constants: list[str] = []
        self._constant_ids: dict[int, int] = {}
        self._by_identity = {id(v): k for k, v in _constants().items()}
        if seed is not None:
            for cls, _, _ in seed.classes:
                self._class_id(cls)
            table = _constants()
            for value in seed.constants:
                name = next(k for k, v in table.items() if v is value)
                self._constant_ids[id(value)] = len(self.constants)
                self.constants.append(name)
        self._memo: dict[int, int] = {}
        #: class -> (its index in the table, its fields, whether it has a ``__getstate__``, tag,
        #: whether it is a frozen dataclass)
        self._plans: dict[type, tuple[int, tuple[str, ...], bool, str, bool]] = {}
        self._kept: list[object] = []  # what the memo's ids belong to, alive until the end
        #: A frozen instance's encoding, by identity, for every document of this encoder (a
        #: callee's summary is in the records of all its callers): never numbered for "r".
        self._frozen: dict[int, tuple[object, Any]] = {}
        self._inside_frozen = 0

    def header(self) -> str:
        return json.dumps({"classes": self.classes, "constants": self.constants}, separators=(",", ":"))

    def encode(self, value: object) -> str:
        """One document (shared values are shared within it, not across documents)."""
        self._memo, self._kept = {}, []
        return json.dumps(self._value(value), separators=(",", ":"), allow_nan=True)

    def _class_id(self, cls: type) -> int:
        index = self._class_ids.get(cls)
        if index is None:
            index = self._class_ids[cls] = len(self.classes)
            prefix = "ast" if issubclass(cls, ast.AST) else cls.__module__
            self.classes.append(f"{prefix}:{cls.__qualname__}")
        return index

    def _value(self, value: object) -> Any:
        kind = type(value)
        if kind in _PLAIN:
            return value
        container = _CONTAINERS.get(kind)
        if container is not None:
            encode = self._value
            if kind is dict:
                flat: list[Any] = []
                for k, v in value.items():  # type: ignore[attr-defined]
                    flat.append(k if type(k) in _PLAIN else encode(k))
                    flat.append(v if type(v) in _PLAIN else encode(v))
                return {"d": flat}
            elements = [v if type(v) in _PLAIN else encode(v) for v in value]  # type: ignore[attr-defined]
            return elements if kind is list else {container: elements}
        named = self._by_identity.get(id(value))
        if named is not None:
            index = self._constant_ids.get(id(value))
            if index is None:
                index = self._constant_ids[id(value)] = len(self.constants)
                self.constants.append(named)
            return {"n": index}
        plan = self._plans.get(kind)
        if plan is None:
            names = _fields(kind)
            if names is None:
                raise CodecError(f"cannot store a {kind.__module__}.{kind.__qualname__}")
            plan = self._plans[kind] = (self._class_id(kind), names, "__getstate__" in vars(kind),
                                        "a" if issubclass(kind, ast.AST) else "c", _is_frozen(kind))
        index, names, by_state, tag, frozen = plan
        if frozen:
            held = self._frozen.get(id(value))
            if held is not None:
                return held[1]
            self._inside_frozen += 1
        else:
            if self._inside_frozen:
                raise CodecError(f"a {kind.__qualname__} inside a frozen value")
            seen = self._memo.get(id(value))
            if seen is not None:
                return {"r": seen}
        encode = self._value
        items: list[Any] = [index]
        try:
            if by_state:
                state: dict[str, object] = value.__getstate__()  # type: ignore[assignment]
                items.extend(encode(state.get(n)) for n in names)
            else:
                for n in names:
                    v = getattr(value, n, None)
                    items.append(v if type(v) in _PLAIN else encode(v))
        finally:
            if frozen:
                self._inside_frozen -= 1
        encoded = {tag: items}
        if frozen:
            self._frozen[id(value)] = (value, encoded)
        else:
            self._memo[id(value)] = len(self._memo)
            self._kept.append(value)
        return encoded


def _is_frozen(cls: type) -> bool:
    params = getattr(cls, "__dataclass_params__", None)
    return bool(params is not None and params.frozen)


_PLAIN = frozenset({str, int, bool, float, type(None)})
_CONTAINERS: dict[type, str] = {tuple: "t", list: "l", frozenset: "f", set: "s", dict: "d"}


class Decoder:
    """JSON text back to values, with the class table and constants of the file's header."""

    def __init__(self, header: str | bytes) -> None:
        try:
            head = json.loads(header)
        except (ValueError, RecursionError) as exc:
            raise CodecError(f"bad header: {exc}") from None
        if not isinstance(head, dict) or not isinstance(head.get("classes"), list) \
                or not isinstance(head.get("constants"), list):
            raise CodecError("bad header")
        self.classes: list[tuple[type, tuple[str, ...], tuple[Check, ...]]] = [
            self._class(name) for name in head["classes"]]
        self._frozen = [_is_frozen(cls) for cls, _, _ in self.classes]
        table = _constants()
        self.constants: list[object] = []
        for name in head["constants"]:
            if not isinstance(name, str) or name not in table:
                raise CodecError(f"unknown constant {name!r}")
            self.constants.append(table[name])

    @staticmethod
    def _class(name: object) -> tuple[type, tuple[str, ...], tuple[Check, ...]]:
        if not isinstance(name, str) or ":" not in name:
            raise CodecError(f"bad class name {name!r}")
        module_name, _, qualname = name.partition(":")
        if module_name == "ast":
            cls = getattr(ast, qualname, None)
        elif module_name.split(".")[0] == "device_types" and module_name in sys.modules:
            cls = getattr(sys.modules[module_name], qualname, None)
        else:
            cls = None
        names = _fields(cls) if isinstance(cls, type) else None
        if cls is None or names is None:
            raise CodecError(f"class {name!r} is not one the cache stores")
        return cls, names, _checks(cls, names)

    def decode(self, text: str | bytes) -> object:
        built: list[object] = []
        classes, constants, frozen = self.classes, self.constants, self._frozen

        def hook(obj: dict[str, Any]) -> object:
            if len(obj) != 1:
                raise CodecError("an object with more than one tag")
            for tag, body in obj.items():
                pass
            if type(body) is list:
                if tag == "c" or tag == "a":
                    if not body or type(body[0]) is not int or not 0 <= body[0] < len(classes):
                        raise CodecError("an instance of an unknown class")
                    cls, names, checks = classes[body[0]]
                    if len(body) != len(names) + 1 or (tag == "a") != issubclass(cls, ast.AST):
                        raise CodecError(f"{cls.__qualname__} with {len(body) - 1} fields")
                    # ast.AST.__new__ is ast's own (C); a dataclass gets object's: no method of ours runs
                    instance = cls.__new__(cls) if tag == "a" else object.__new__(cls)  # type: ignore[call-overload]
                    values = body[1:]
                    if not all(map(_call, checks, values)):
                        bad = next(n for n, c, v in zip(names, checks, values) if not c(v))
                        raise CodecError(f"{cls.__qualname__}.{bad} has the wrong type")
                    state = getattr(instance, "__dict__", None)
                    if state is not None and tag == "c":
                        state.update(zip(names, values))  # a dataclass: its fields, as __init__ sets them
                    else:
                        for name, value in zip(names, values):
                            object.__setattr__(instance, name, value)
                    if not frozen[body[0]]:  # a frozen value is never referred to by number
                        built.append(instance)
                    return instance
                if tag == "t":
                    return tuple(body)
                if tag == "f":
                    return frozenset(body)
                if tag == "d":
                    if len(body) % 2:
                        raise CodecError("a dict with an odd number of items")
                    return dict(zip(body[::2], body[1::2]))
                if tag == "s":
                    return set(body)
            elif type(body) is int:
                if tag == "r":
                    if not 0 <= body < len(built):
                        raise CodecError("a reference to nothing")
                    return built[body]
                if tag == "n":
                    if not 0 <= body < len(constants):
                        raise CodecError("an unknown constant")
                    return constants[body]
            raise CodecError(f"unknown tag {tag!r}")

        try:
            return json.loads(text, object_hook=hook)
        except CodecError:
            raise
        except (ValueError, TypeError, RecursionError, AttributeError) as exc:
            # bad JSON; an unhashable value in a set or as a key; too deep; a slot that is not there
            raise CodecError(str(exc)) from None


def dumps(value: object, encoder: Encoder | None = None) -> bytes:
    """``value`` as one file's bytes: the magic line, the header, the body."""
    encoder = encoder or Encoder()
    body = encoder.encode(value)
    return b"".join((MAGIC, encoder.header().encode(), b"\n", body.encode()))


def loads(data: bytes) -> tuple[object, Decoder]:
    """The value of ``dumps``'s bytes, and the decoder (for documents stored inside it)."""
    if not data.startswith(MAGIC):
        raise CodecError("not a device-types cache file")
    header, newline, body = data[len(MAGIC):].partition(b"\n")
    if not newline:
        raise CodecError("no header")
    decoder = Decoder(header)
    return decoder.decode(body), decoder
