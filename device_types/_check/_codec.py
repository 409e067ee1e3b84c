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

A file is lines: the magic line, the header (the class table and the constants), the body,
then any number of *documents*, one JSON text a line, which the body refers to by number
(``Encoder.document``) and which are decoded only when asked for (``Decoder.document``): a
re-check reads the records of the functions it looks at, not every record of every module
it opens, and a document that did not change is copied into the next file as it was read
(``Encoder.copy``), not decoded and encoded again. JSON never holds a raw line break.

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

MAGIC = b"device-types-cache 2\n"


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
_VALIDATORS: dict[type, Callable[[list[object]], bool]] = {}
Check = Callable[[object], bool]


def _any(value: object) -> bool:
    return True


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


def _expression(hint: object, value: str, names: dict[str, object], depth: int = 0) -> str | None:
    """``_checker(hint)`` as a Python expression over the variable ``value`` (None: no test),
    for ``_validator``: the same tests, without a call for each value tested."""
    if hint is Any or hint is object:
        return None
    if hint is None or hint is type(None):
        return f"{value} is None"
    if hint is float:
        return f"(type({value}) is float or type({value}) is int)"
    if hint is str or hint is bool:
        return f"isinstance({value}, {hint.__name__})"
    if hint is int:
        return f"(type({value}) is int or type({value}) is bool)"
    if isinstance(hint, type):
        name = f"_C{len(names)}"
        names[name] = hint
        return f"isinstance({value}, {name})"
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    inner, key = f"_x{depth}", f"_k{depth}"
    if origin is typing.Union or origin is types.UnionType:
        if all(isinstance(a, type) and a not in (str, bool, int, float, type(None)) for a in args):
            name = f"_C{len(names)}"  # rebuilt classes alone: one isinstance
            names[name] = tuple(args)
            return f"isinstance({value}, {name})"
        options = [_expression(a, value, names, depth) for a in args]
        return None if any(o is None for o in options) else "(" + " or ".join(o for o in options if o) + ")"
    if origin is typing.Literal:
        name = f"_L{len(names)}"
        names[name] = set(args)
        return f"(type({value}) in (str, int, bool) and {value} in {name})"
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            each = _expression(args[0], inner, names, depth + 1)
            return f"(type({value}) is tuple" + (f" and all({each} for {inner} in {value}))" if each else ")")
        if args == ((),) or not args:
            return f"type({value}) is tuple"
        parts = [_expression(a, f"{value}[{i}]", names, depth + 1) for i, a in enumerate(args)]
        return f"(type({value}) is tuple and len({value}) == {len(args)}" + "".join(f" and {p}" for p in parts if p) + ")"
    if origin in (list, set, frozenset):
        each = _expression(args[0], inner, names, depth + 1) if args else None
        kind = origin.__name__
        return f"(type({value}) is {kind}" + (f" and all({each} for {inner} in {value}))" if each else ")")
    if origin is dict:
        keys = _expression(args[0], key, names, depth + 1) if args else None
        items = _expression(args[1], inner, names, depth + 1) if args else None
        tests = " and ".join(t for t in (keys, items) if t)
        return f"(type({value}) is dict" + (f" and all({tests} for {key}, {inner} in {value}.items()))" if tests else ")")
    return None


def _validator(cls: type, fields: tuple[str, ...]) -> Callable[[list[object]], bool]:
    """One function that tests all of a rebuilt instance's field values at once, given the
    instance's JSON list (its class number first), as ``_checks`` does one by one (which is
    kept to name the field that failed)."""
    if issubclass(cls, ast.AST):
        return lambda body: all(map(_ast_field, body[1:]))
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - a hint that does not resolve is not checked
        hints = {}
    names: dict[str, object] = {}
    tests = [_expression(hints.get(n, Any), f"_f{i}", names) for i, n in enumerate(fields)]
    unpack = "".join(f", _f{i}" for i in range(len(fields)))
    body = " and ".join(f"({t})" for t in tests if t) or "True"
    source = f"def check(body):\n    _{unpack} = body\n    return {body}\n"
    namespace: dict[str, Any] = dict(names)
    exec(compile(source, f"<cache check of {cls.__qualname__}>", "exec"), namespace)  # noqa: S102 - our own text
    return namespace["check"]  # type: ignore[no-any-return]


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
            for cls, _ in seed.classes:
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
        #: The file's documents, encoded (``document``) or copied from the seed's (``copy``).
        self.documents: list[bytes] = []
        self._texts: dict[int, tuple[object, str]] = {}

    def header(self) -> str:
        return json.dumps({"classes": self.classes, "constants": self.constants}, separators=(",", ":"))

    def encode(self, value: object) -> str:
        """One document (shared values are shared within it, not across documents)."""
        self._memo, self._kept = {}, []
        return json.dumps(self._value(value), separators=(",", ":"), allow_nan=True)

    def text(self, value: object) -> str:
        """A frozen ``value`` (a summary) as a JSON text of its own, encoded once per file:
        a value that many documents hold (a callee's summary in each of its callers' records)
        is then decoded once per file too (``Decoder.text``)."""
        held = self._texts.get(id(value))
        if held is None:
            memo, kept = self._memo, self._kept
            held = self._texts[id(value)] = (value, self.encode(value))
            self._memo, self._kept = memo, kept
        return held[1]

    def document(self, value: object) -> int:
        """``value`` as a document of the file: its number."""
        self.documents.append(self.encode(value).encode())
        return len(self.documents) - 1

    def copy(self, index: int) -> int:
        """The seed's document ``index``, as it was read (its tables are this file's too)."""
        assert self.seed is not None
        self.documents.append(self.seed.documents[index])
        return len(self.documents) - 1

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
        self.classes: list[tuple[type, tuple[str, ...]]] = [self._class(name) for name in head["classes"]]
        self._frozen = [_is_frozen(cls) for cls, _ in self.classes]
        #: Each class's test, made when an instance of it is first read (a file names classes
        #: that the documents a run reads may never hold; making a test costs a compile)
        self._validators: list[Callable[[list[object]], bool] | None] = [_VALIDATORS.get(cls)
                                                                           for cls, _ in self.classes]
        table = _constants()
        self.constants: list[object] = []
        for name in head["constants"]:
            if not isinstance(name, str) or name not in table:
                raise CodecError(f"unknown constant {name!r}")
            self.constants.append(table[name])
        #: The file's documents, undecoded (``document``).
        self.documents: list[bytes] = []
        self._built: list[object] = []
        self._json = self._decoder()
        #: Equal values that the readers of this file's documents share (``shared``).
        self._shared: dict[object, object] = {}
        self._texts: dict[str, object] = {}

    def document(self, index: object) -> object:
        """Document ``index`` of the file, decoded (``CodecError`` when there is none)."""
        if type(index) is not int or not 0 <= index < len(self.documents):
            raise CodecError(f"no document {index!r}")
        return self.decode(self.documents[index])

    def text(self, text: object) -> object:
        """The value of a JSON text inside a document (``Encoder.text``), decoded once per file."""
        if type(text) is not str:
            raise CodecError("a value that is not a text")
        value = self._texts.get(text)
        if value is None:
            value = self._texts[text] = self.decode(text)
        return value

    def shared(self, value: object) -> Any:
        """``value``, or the equal value a reader of this file got first (one copy of each)."""
        return self._shared.setdefault(value, value)

    @staticmethod
    def _class(name: object) -> tuple[type, tuple[str, ...]]:
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
        return cls, names

    def decode(self, text: str | bytes) -> object:
        """One JSON text (the body, a document, a text inside one) back to its value."""
        self._built.clear()  # "r" numbers count within one text
        try:
            return self._json.decode(text.decode() if isinstance(text, bytes) else text)
        except CodecError:
            raise
        except (ValueError, TypeError, RecursionError, AttributeError) as exc:
            # bad JSON; an unhashable value in a set or as a key; too deep; a slot that is not there
            raise CodecError(str(exc)) from None

    def _decoder(self) -> json.JSONDecoder:
        """A JSON decoder whose object hook rebuilds this file's values: made once per file."""
        built = self._built
        classes, constants, frozen, validators = self.classes, self.constants, self._frozen, self._validators

        count = len(classes)
        sizes = [len(names) + 1 for _, names in classes]
        is_ast = [issubclass(cls, ast.AST) for cls, _ in classes]
        # a dataclass with an instance dict gets its fields as __init__ sets them, all at once
        with_dict = [not ast_class and getattr(cls, "__dictoffset__", 0) != 0
                     for (cls, _), ast_class in zip(classes, is_ast)]

        def hook(obj: dict[str, Any]) -> object:
            (tag, body), = obj.items()  # anything but one tag: ValueError, a miss
            if type(body) is list:  # the tags in the order of how often a module's file holds them
                if tag == "s":
                    return set(body)
                if tag == "t":
                    return tuple(body)
                if tag == "d":
                    if not body:
                        return {}
                    if len(body) % 2:
                        raise CodecError("a dict with an odd number of items")
                    return dict(zip(body[::2], body[1::2]))
                if tag == "c" or tag == "a":
                    index = body[0] if body else None
                    if type(index) is not int or not 0 <= index < count:
                        raise CodecError("an instance of an unknown class")
                    cls, names = classes[index]
                    if len(body) != sizes[index] or (tag == "a") != is_ast[index]:
                        raise CodecError(f"{cls.__qualname__} with {len(body) - 1} fields")
                    valid = validators[index]
                    if valid is None:
                        valid = validators[index] = _VALIDATORS.get(cls) or _VALIDATORS.setdefault(
                            cls, _validator(cls, names))
                    if not valid(body):
                        checks = _checks(cls, names)
                        bad = next((n for n, c, v in zip(names, checks, body[1:]) if not c(v)), "a field")
                        raise CodecError(f"{cls.__qualname__}.{bad} has the wrong type")
                    # ast.AST.__new__ is ast's own (C); a dataclass gets object's: no method of ours runs
                    instance: Any
                    if with_dict[index]:
                        instance = object.__new__(cls)
                        instance.__dict__.update(zip(names, body[1:]))
                    else:
                        instance = cls.__new__(cls) if tag == "a" else object.__new__(cls)  # type: ignore[call-overload]
                        for name, value in zip(names, body[1:]):
                            object.__setattr__(instance, name, value)
                    if not frozen[index]:  # a frozen value is never referred to by number
                        built.append(instance)
                    return instance
                if tag == "f":
                    return frozenset(body)
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

        return json.JSONDecoder(object_hook=hook)


def dumps(value: object, encoder: Encoder | None = None) -> bytes:
    """``value`` as one file's bytes: the magic line, the header, the body, the documents."""
    encoder = encoder or Encoder()
    body = encoder.encode(value)
    return b"\n".join((MAGIC + encoder.header().encode(), body.encode(), *encoder.documents))


def loads(data: bytes) -> tuple[object, Decoder]:
    """The value of ``dumps``'s bytes, and the decoder (for the documents of the file)."""
    if not data.startswith(MAGIC):
        raise CodecError("not a device-types cache file")
    lines = data[len(MAGIC):].split(b"\n")
    if len(lines) < 2:
        raise CodecError("no header")
    decoder = Decoder(lines[0])
    decoder.documents = lines[2:]
    return decoder.decode(lines[1]), decoder
