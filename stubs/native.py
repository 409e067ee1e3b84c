"""Typed Python signatures from torch's native function schemas.

``torch.linalg``, ``torch.fft`` and ``torch.special`` bind ATen ops that torch ships no
``.pyi`` for (``torch._C._linalg`` and friends). Their schemas are the only typed source
torch has: ``native_functions.yaml``, shipped in the same wheel under
``torchgen/packaged``, holds them (``linalg_cross(Tensor self, Tensor other, *, int
dim=-1) -> Tensor``), and ``torchgen.model`` (shipped too, pure Python, no torch import)
parses them. The schema types map onto Python types the way torch's own ``.pyi``
generator maps them for ``torch._C._VariableFunctions``; an out variant adds the
``out=`` keyword to its functional twin. docs/op-semantics.md says why this source.
"""

from __future__ import annotations

import importlib
import importlib.util
import re
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

__all__ = ["NativeSchemas", "NativeOp", "load_schemas", "python_default", "STRUCTSEQ_MODULE"]

#: Where multi-result schemas with named results live at run time (``torch.return_types.linalg_eigh``).
STRUCTSEQ_MODULE = "torch.return_types"
YAML = "packaged/ATen/native/native_functions.yaml"
_ENTRY = re.compile(r"^- func: (.*)$", re.M)
_PYTHON_MODULE = re.compile(r"^  python_module: (\w+)\s*$", re.M)

_BASE_TYPES = {
    "Tensor": "Tensor",
    "int": "_int",
    "SymInt": "_int | SymInt",
    "float": "_float",
    "bool": "_bool",
    "SymBool": "_bool",
    "str": "str",
    "Scalar": "Number | _complex",
    "ScalarType": "_dtype",
    "Device": "Device",
    "Layout": "_layout",
    "MemoryFormat": "memory_format",
    "Generator": "Generator",
    "Dimname": "str | EllipsisType | None",
}

#: Names the generated signatures use; every module that holds them imports these.
IMPORTS = """
from collections.abc import Sequence
from types import EllipsisType
from typing import Any
import torch
from torch import Generator, SymInt, Tensor as Tensor, memory_format
from torch.types import Device, Number, _bool, _complex, _dtype, _float, _int, _layout, _size
"""


def _base(t: Any) -> str:
    return _BASE_TYPES.get(t.name.name, "Any")


def python_type(t: Any) -> str:
    kind = type(t).__name__
    if kind == "OptionalType":
        inner = python_type(t.elem)
        return inner if inner in {"Any", "Device"} else f"{inner} | None"
    if kind == "ListType":
        elem = t.elem
        if type(elem).__name__ == "OptionalType" and _base(elem.elem) == "Tensor":
            return "tuple[Tensor | None, ...] | list[Tensor | None]"
        item = python_type(elem)
        if item == "Tensor":
            return "tuple[Tensor, ...] | list[Tensor]"
        if item == "_int":
            return "_int | _size" if t.size else "_size"
        sequence = f"Sequence[{item}]"
        return f"{item} | {sequence}" if t.size else sequence
    if kind == "BaseType":
        return _base(t)
    return "Any"


#: Schema defaults that are Python's ``None``.
_NONE_DEFAULTS = frozenset({"None", "nullptr", "c10::nullopt", "::std::nullopt", "std::nullopt"})
_INT = re.compile(r"-?\d+")
_FLOAT = re.compile(r"-?\d+(\.\d*)?([eE]-?\d+)?")
_STRING = re.compile(r"""(["'])([\w.-]*)\1""")
_INT_LIST = re.compile(r"\[\s*(-?\d+(\s*,\s*-?\d+)*)?\s*\]")


def python_default(default: str) -> str | None:
    """A schema's default as the Python literal torch's binding uses (``-1``, ``None``,
    ``"L"``, ``(-2, -1)`` for ``[-2,-1]``), or None where it is not a plain literal.

    A stub that writes ``= ...`` instead makes pyright's and basedpyright's signature help
    look the function up in torch's source on every request to print the real default
    (``replaceStubEllipsisDefaultValues``); for ``torch.fft`` that source imports
    ``torch._torch_docs`` (0.44 MB): 30-40 ms a request (docs/performance.md)."""
    if default in _NONE_DEFAULTS:
        return "None"
    if default in ("True", "False") or _INT.fullmatch(default) or _FLOAT.fullmatch(default):
        return default
    string = _STRING.fullmatch(default)
    if string is not None:
        return f'"{string[2]}"'
    ints = _INT_LIST.fullmatch(default)
    if ints is not None:
        items = [item.strip() for item in (ints[1] or "").split(",") if item.strip()]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"
    return None


def _result_type(t: Any) -> str:
    if type(t).__name__ == "ListType" and python_type(t.elem) == "Tensor":
        return "tuple[Tensor, ...]"
    return python_type(t)


@dataclass(frozen=True)
class NativeOp:
    """One functional overload of a native op, with the ``out=`` of its out variant."""

    schema: Any
    out_count: int  # 0: no out variant

    @property
    def base_name(self) -> str:
        return str(self.schema.name.name.base)

    @property
    def structseq(self) -> list[tuple[str, str]] | None:
        """(field, type) of a named multi-result, which torch returns as a structseq."""
        returns = self.schema.returns
        if len(returns) > 1 and all(r.name for r in returns):
            return [(str(r.name), _result_type(r.type)) for r in returns]
        return None

    def returns(self) -> str:
        returns = self.schema.returns
        if not returns:
            return "None"
        if self.structseq is not None:
            return f"{STRUCTSEQ_MODULE}.{self.base_name}"
        if len(returns) == 1:
            return _result_type(returns[0].type)
        return "tuple[" + ", ".join(_result_type(r.type) for r in returns) + "]"

    def parameters(self) -> tuple[list[tuple[str, str, bool]], list[tuple[str, str, bool]]]:
        """(positional, keyword-only) as (name, type, has_default); ``self`` is ``input``."""
        arguments = self.schema.arguments

        def param(a: Any) -> tuple[str, str, bool]:
            return ("input" if a.name == "self" else a.name, python_type(a.type), a.default is not None)

        positional = [param(a) for a in arguments.flat_positional]
        keyword = [param(a) for a in arguments.flat_kwarg_only]
        names = {n for n, _, _ in keyword}
        if "device" in names:
            keyword.append(("requires_grad", "_bool", True))  # torch's Python binding adds it to factories
        if self.out_count == 1:
            keyword.append(("out", "Tensor | None", True))
        elif self.out_count > 1:
            keyword.append(("out", "tuple[Tensor, ...] | list[Tensor] | None", True))
        return positional, keyword

    def defaults(self) -> dict[str, str]:
        """The Python default of each parameter that has a plain literal one (``python_default``);
        the parameters torch's binding adds (``out``, ``requires_grad``) default to None and False."""
        arguments = self.schema.arguments
        found = {"out": "None", "requires_grad": "False"}
        for a in [*arguments.flat_positional, *arguments.flat_kwarg_only]:
            value = None if a.default is None else python_default(str(a.default))
            if value is not None:
                found["input" if a.name == "self" else a.name] = value
        return found

    def python_def(self, public_name: str, overloaded: bool) -> str:
        positional, keyword = self.parameters()
        defaults = self.defaults()

        def text(p: tuple[str, str, bool]) -> str:
            return f"{p[0]}: {p[1]}" + (f" = {defaults.get(p[0], '...')}" if p[2] else "")

        params = [text(p) for p in positional]
        # A parameter without a default cannot follow one with a default (positional).
        seen_default = False
        for i, p in enumerate(positional):
            if p[2]:
                seen_default = True
            elif seen_default:
                params[i] = f"{p[0]}: {p[1]} = ..."
        if keyword:
            params += ["*", *(text(p) for p in keyword)]
        decorator = "@_dt_overload\n" if overloaded else ""
        return f"{decorator}def {public_name}({', '.join(params)}) -> {self.returns()}: ..."


def structseq_class(op: NativeOp) -> str:
    """A ``torch.return_types`` class in the layout torch's own ``return_types.pyi`` uses."""
    fields = op.structseq or []
    tuple_type = "tuple[" + ", ".join(t for _, t in fields) + "]"
    lines = [f"class {op.base_name}({tuple_type}):"]
    for field, t in fields:
        lines += ["    @property", f"    def {field}(self) -> {t}: ..."]
    lines += [
        f"    def __new__(cls, sequence: {tuple_type}) -> Self: ...",
        f"    n_fields: Final[_int] = {len(fields)}",
        f"    n_sequence_fields: Final[_int] = {len(fields)}",
        "    n_unnamed_fields: Final[_int] = 0",
        "    def __init_subclass__(cls) -> NoReturn: ...",
    ]
    return "\n".join(lines)


class NativeSchemas:
    """The schemas of ``native_functions.yaml`` by op name; parsed on first use."""

    def __init__(self, text: str) -> None:
        self._lines: dict[str, list[str]] = defaultdict(list)
        self.python_modules: dict[str, str] = {}
        starts = [m for m in _ENTRY.finditer(text)]
        for index, match in enumerate(starts):
            schema = match.group(1).strip()
            end = starts[index + 1].start() if index + 1 < len(starts) else len(text)
            name = schema.split("(", 1)[0].split(".", 1)[0]
            self._lines[name].append(schema)
            module = _PYTHON_MODULE.search(text, match.end(), end)
            if module is not None:
                self.python_modules[name] = module.group(1)

    @cached_property
    def _parse(self) -> Any:
        return importlib.import_module("torchgen.model").FunctionSchema.parse

    def __contains__(self, name: str) -> bool:
        return name in self._lines

    def ops(self, name: str) -> list[NativeOp]:
        """The functional overloads of ``name`` (out variants folded into ``out=``)."""
        parsed = []
        for line in self._lines.get(name, []):
            try:
                parsed.append(self._parse(line))
            except Exception:  # noqa: BLE001 - a schema this torchgen cannot read: that overload stays out
                continue
        functional = [s for s in parsed if not s.arguments.out and not s.name.name.inplace]
        outs = {str(s.signature()): len(s.arguments.out) for s in parsed if s.arguments.out}
        return [NativeOp(s, outs.get(str(s.signature()), 0)) for s in functional]


def load_schemas(torch_root: Path) -> NativeSchemas | None:
    """The schemas shipped with the installed torch, or None when its wheel has none."""
    # Only the torchgen next to the torch being stubbed carries that torch's schemas.
    path = torch_root.parent / "torchgen" / YAML
    if not path.is_file() or importlib.util.find_spec("torchgen") is None:
        return None
    try:
        importlib.import_module("torchgen.model")
    except ImportError:
        return None
    return NativeSchemas(path.read_text(encoding="utf-8"))
