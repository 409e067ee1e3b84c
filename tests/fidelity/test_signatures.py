"""What pyright infers from torch's Python source, the overlay keeps (stubs/inferred.py).

For every method that ``torch/_tensor.py`` defines without a return annotation, and every
call of a ``torch/functional.py`` function, pyright reveals the type on a bare tensor
once with the overlay and once without it (the shadow environment). With the devices
printed as stock torch prints them (``Tensor[Any]`` is ``Tensor``) and pyright's
``Unknown | T`` read as ``T`` (inferred.py says why), the two must agree, except the members in ``KNOWN`` (docs/limits.md). mypy
reads all of these as Any without the overlay; ``tests/typecheck`` and the library tests
check that it still does with it.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from device_types_stubs.bare import stock_types_as_any, untyped_functions
from device_types_stubs.overlay import torch_dir

from ..checkers import run_pyright
from ..gradual.test_gradual import shadow_python

HERE = Path(__file__).resolve().parent

pytestmark = pytest.mark.usefixtures("fresh_overlay")

#: Members whose stock type pyright infers from code the overlay does not reproduce.
KNOWN = {
    "x.__reduce_ex__",  # a tuple of pickling callables
    "x.index",  # functorch.dim's _Tensor
    "x.__array__",  # numpy arrays of inferred dtypes
    "x.unflatten",  # parameters inherited from TensorBase's overloads
}


def _untyped_methods() -> list[str]:
    module = ast.parse((torch_dir() / "_tensor.py").read_text(encoding="utf-8"))
    helpers = untyped_functions(module)
    tensor = next(s for s in module.body if isinstance(s, ast.ClassDef) and s.name == "Tensor")
    return [f.name for f in tensor.body if isinstance(f, ast.FunctionDef) and stock_types_as_any(f, helpers)]


def _normalized(message: str) -> str:
    """Types as stock torch prints them; in a result, pyright's ``Unknown | T`` is the
    overlay's ``T``."""
    text = message.replace("'", '"').replace("Tensor*", "Tensor")
    params, arrow, result = text.rpartition(" -> ")
    if not arrow:
        params, result = "", text
    if result.startswith("(") and result.endswith(")"):
        result = result[1:-1]
    if result != "Unknown":
        result = re.sub(r"\bUnknown \| |(?<=[\w\]]) \| Unknown\b", "", result)
    text = params + arrow + result
    text = re.sub(r"\bUnknown\b", "Any", text)
    text = re.sub(r"Tensor\[Any\]", "Tensor", text)
    text = re.sub(r"Any \| None\b", "Any", text)
    text = text.replace("Tensor | Tensor", "Tensor")
    return re.sub(r"Any \| Any", "Any", text)


#: Calls of torch/functional.py's functions on bare tensors: their results must agree
#: (their signatures print differently: the overlay adds device-generic overloads).
CALLS = (
    "torch.norm(x, p=2, dim=1)", "torch.norm(x)",
    "torch.split(x, 2)", "torch.meshgrid(x, x, indexing='ij')", "torch.einsum('ij->j', x)",
    "torch.cdist(x, x)", "torch.tensordot(x, x)", "torch.unique(x)", "torch.stft(x, 4)",
    "torch.block_diag(x, x)", "torch.cartesian_prod(x, x)",
)


def test_pyright_keeps_what_it_infers_from_torch_source(tmp_path: Path) -> None:
    expressions = [f"x.{name}" for name in _untyped_methods()]
    expressions += list(CALLS)
    probe = tmp_path / "reveal.py"
    probe.write_text("import torch\n\ndef f(x: torch.Tensor) -> None:\n" + "".join(f"    reveal_type({e})\n" for e in expressions))
    stock = _types(shadow_python(), probe, expressions)
    overlay = _types(sys.executable, probe, expressions)
    assert set(stock) == set(overlay) == set(expressions)
    differ = {e: (stock[e], overlay[e]) for e in expressions if _normalized(stock[e]) != _normalized(overlay[e])}
    unexplained = {e: d for e, d in differ.items() if e not in KNOWN}
    assert unexplained == {}, "\n".join(f"{e}:\n  stock:   {s}\n  overlay: {o}" for e, (s, o) in unexplained.items())
    assert set(differ) == KNOWN & set(expressions), "a KNOWN member now agrees: drop it (and its docs/limits.md line)"


def _types(python: str, probe: Path, expressions: list[str]) -> dict[str, str]:
    """expression -> its revealed type (by line: pyright abbreviates long expressions)."""
    import json
    import subprocess

    from ..checkers import BIN

    proc = subprocess.run(
        [str(BIN / "pyright"), "--outputjson", "-p", str(HERE / "pyrightconfig.json"), "--pythonpath", python, str(probe)],
        capture_output=True, text=True,
    )
    report = json.loads(proc.stdout)
    out = {}
    for d in report["generalDiagnostics"]:
        match = re.match(r'^Type of ".*" is "(.*)"$', d["message"], re.DOTALL)
        if d["severity"] == "information" and match:
            out[expressions[d["range"]["start"]["line"] - 3]] = match[1]
    return out
