"""TensorBase's (patched) signatures, for ``torch/_tensor.pyi`` to reuse.

``torch/_tensor.py`` re-declares some of ``TensorBase``'s ops: as aliases
(``__itruediv__ = _C.TensorBase.__idiv__``), or as Python methods that checkers see as
``Any`` (no return annotation, or an untyped decorator such as torch 2.4's
``_handle_torch_function_and_wrap_type_error_to_not_implemented``). The overlay gives such
a name TensorBase's device-generic signature. The copies are written into another module,
so every name their annotations take from ``torch/_C/__init__.pyi``'s namespace is
imported under a private alias (``_int`` -> ``_dt_c__int``): ``_tensor.py``'s own names
may mean something else (its ``Number`` is ``numbers.Number``).
"""

from __future__ import annotations

import ast
import builtins
import copy
from dataclasses import dataclass, field

__all__ = ["BaseSignatures"]

_PREFIX = "_dt_c_"
#: Names the copies may use as they are: the overlay's own, and the class being written.
_OWN = ("_dt_", "_DeviceT")
_LOCAL = frozenset({"Tensor", "self"})


@dataclass
class BaseSignatures:
    members: set[str]
    defs: dict[str, list[ast.FunctionDef]]
    #: name bound in torch/_C/__init__.pyi -> (module to import it from, its name there)
    namespace: dict[str, tuple[str, str]]
    _used: dict[str, tuple[str, str]] = field(default_factory=dict)

    @classmethod
    def of(cls, c_module: str) -> BaseSignatures | None:
        """From the patched ``torch/_C/__init__.pyi``; None without a ``TensorBase`` class."""
        tree = ast.parse(c_module)
        namespace: dict[str, tuple[str, str]] = {}
        found: ast.ClassDef | None = None
        for stmt in tree.body:
            if isinstance(stmt, ast.ImportFrom) and stmt.module and stmt.level == 0:
                for alias in stmt.names:
                    namespace[alias.asname or alias.name] = (stmt.module, alias.name)
            elif isinstance(stmt, (ast.ClassDef, ast.FunctionDef)):
                namespace[stmt.name] = ("torch._C", stmt.name)
            elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                namespace[stmt.target.id] = ("torch._C", stmt.target.id)
            elif isinstance(stmt, ast.Assign):
                for target in stmt.targets:
                    if isinstance(target, ast.Name):
                        namespace[target.id] = ("torch._C", target.id)
            if isinstance(stmt, ast.ClassDef) and stmt.name == "TensorBase":
                found = stmt
        if found is None:
            return None
        members: set[str] = set()
        defs: dict[str, list[ast.FunctionDef]] = {}
        for member in found.body:
            if isinstance(member, ast.FunctionDef):
                members.add(member.name)
                defs.setdefault(member.name, []).append(member)
            elif isinstance(member, ast.AnnAssign) and isinstance(member.target, ast.Name):
                members.add(member.target.id)
        return cls(members, defs, namespace)

    def copies(self, name: str, as_name: str) -> list[ast.FunctionDef]:
        """TensorBase's defs of ``name``, renamed ``as_name``, their names made importable."""
        out = []
        for base_def in self.defs.get(name, []):
            copied = copy.deepcopy(base_def)
            copied.name = as_name
            for node in ast.walk(copied):
                if isinstance(node, ast.Name) and self._foreign(node.id):
                    self._used[node.id] = self.namespace[node.id]
                    node.id = _PREFIX + node.id
            out.append(copied)
        return out

    def _foreign(self, identifier: str) -> bool:
        return (
            identifier in self.namespace
            and identifier not in _LOCAL
            and not identifier.startswith(_OWN)
            and not hasattr(builtins, identifier)
        )

    def imports(self) -> list[ast.stmt]:
        """The imports the copies made so far need (deterministic order)."""
        return [
            ast.ImportFrom(module=module, names=[ast.alias(name=original, asname=_PREFIX + local)], level=0)
            for local, (module, original) in sorted(self._used.items())
        ]
