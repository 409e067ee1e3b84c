"""The overlay generator, its freshness check, the CLI and the coverage report."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from device_types._semantics import OpKind, classify
from device_types_stubs import overlay as overlay_module
from device_types_stubs.coverage import coverage
from device_types_stubs.overlay import STAMP, Overlay, OverlayError, build_overlay, installed_state, torch_dir

CLI = [sys.executable, "-m", "device_types._cli"]
ROOT = Path(__file__).resolve().parents[2]


@cache
def overlay() -> Overlay:
    return build_overlay()


def test_overlay_carries_every_torch_stub_and_is_partial() -> None:
    torch_stubs = {p.relative_to(torch_dir()).as_posix() for p in torch_dir().rglob("*.pyi")}
    files = set(overlay().files)
    assert torch_stubs <= files
    written = {"linalg/__init__.pyi", "fft/__init__.pyi", "special/__init__.pyi", "functional.pyi"}
    assert files - torch_stubs == {"_tensor.pyi", "_device_layer.pyi", "py.typed", *written}
    assert overlay().files["py.typed"] == "partial\n"


def test_patched_classes_are_device_generic() -> None:
    c_module = overlay().files["_C/__init__.pyi"]
    assert "class TensorBase(_dt_Generic[_DeviceT], metaclass=_TensorMeta):" in c_module
    # covariant: x.device of a bare tensor must hold no Any in an invariant position, or
    # pyright evaluates every overload of each factory it is passed to (docs/performance.md)
    assert "class device(_dt_Generic[_DeviceT_co]):" in c_module
    assert '_DeviceT_co = TypeVar("_DeviceT_co", bound=Device, covariant=True, default=Any)' in overlay().files["_device_layer.pyi"]
    assert "class Tensor(torch._C.TensorBase[_DeviceT]):" in overlay().files["_tensor.pyi"]
    assert 'default=Any' in overlay().files["_device_layer.pyi"]


def _function_defs(name: str) -> list[str]:
    module = ast.parse(overlay().files["_C/_VariableFunctions.pyi"])
    return [ast.unparse(fn.args) for fn in module.body if isinstance(fn, ast.FunctionDef) and fn.name == name]


def test_device_typevar_only_where_it_types_a_result_or_ties_two_tensors() -> None:
    # no tensor result, one tensor: a TypeVar there constrains nothing (docs/performance.md, round 5)
    assert _function_defs("numel") == ["self: Tensor"]
    assert all("_DeviceT" not in args for args in _function_defs("is_nonzero"))
    # no tensor result, two tensors: the mixed-device error stays
    assert all(args.startswith("input: Tensor[_DeviceT], other: Tensor[_DeviceT]") for args in _function_defs("allclose"))
    assert all(args.startswith("input: Tensor[_DeviceT]") for args in _function_defs("abs"))


def _documented(scope: list[ast.stmt], name: str) -> list[bool]:
    return [ast.get_docstring(fn) is not None for fn in scope if isinstance(fn, ast.FunctionDef) and fn.name == name]


def test_every_overload_of_a_documented_op_keeps_its_docstring() -> None:
    # as torch's own stubs do: an undocumented overload sent pyright's language server
    # looking for the implementation's docstring, through the import graph of a stub
    # without a .py (0.4-0.7 s per signature help: docs/performance.md, "The editor")
    functions = ast.parse(overlay().files["_C/_VariableFunctions.pyi"]).body
    for name in ("zeros", "ones", "arange", "tensor", "zeros_like"):
        assert len(_documented(functions, name)) > 4 and all(_documented(functions, name)), name
    c_module = ast.parse(overlay().files["_C/__init__.pyi"]).body
    tensor_base = next(c for c in c_module if isinstance(c, ast.ClassDef) and c.name == "TensorBase")
    for name in ("to", "new_zeros"):
        assert len(_documented(tensor_base.body, name)) > 4 and all(_documented(tensor_base.body, name)), name


def test_variants_carry_the_description_and_the_first_overload_all_of_the_docs() -> None:
    """SUMMARY_DOCS: torch's docs were 2.0 of ``_VariableFunctions.pyi``'s 2.4 MB, and the
    servers tokenize them for the first diagnostics; a variant keeps the signature line and
    the description (what signature help and hover show first), not the argument list and
    examples."""
    functions = [fn for fn in ast.parse(overlay().files["_C/_VariableFunctions.pyi"]).body
                 if isinstance(fn, ast.FunctionDef) and fn.name == "zeros"]
    docs = [ast.get_docstring(fn) or "" for fn in functions]
    assert "Example::" in docs[0] and "Returns a tensor filled with the scalar value `0`" in docs[0]
    short = [d for d in docs if "Example::" not in d]
    assert len(short) > 4 and all("Returns a tensor filled with the scalar value `0`" in d for d in short)


def test_repository_commits_no_torch_stub() -> None:
    tracked = subprocess.run(["git", "ls-files", "*.pyi"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert tracked.split() == []


@pytest.mark.parametrize(
    ("name", "params", "takes", "kind"),
    [
        ("bmm", ["input", "mat2"], True, OpKind.PRESERVE),
        ("zeros", ["size", "out", "device"], False, OpKind.CREATE),
        ("zeros_like", ["input", "device"], True, OpKind.CREATE_LIKE),
        ("new_zeros", ["size", "device"], True, OpKind.CREATE_LIKE),
        ("cpu", [], True, OpKind.TRANSFER),
        ("to", ["device", "dtype"], True, OpKind.TRANSFER),
        ("numpy", ["force"], True, OpKind.READBACK),
        ("from_numpy", ["ndarray"], False, OpKind.CREATE),
        ("get_default_dtype", [], False, OpKind.UNTOUCHED),
    ],
)
def test_classify(name: str, params: list[str], takes: bool, kind: OpKind) -> None:
    assert classify(name, params, takes_tensor=takes, mentions_tensor=takes) is kind


def test_coverage_meets_target() -> None:
    report = coverage()
    for part in (report.functions, report.methods):
        assert part.ratio >= 0.95, part.uncovered
        assert part.total > 400  # the denominators are real, not empty


def test_namespace_coverage_meets_target() -> None:
    report = coverage()
    assert set(report.namespaces) == {"torch.linalg", "torch.fft", "torch.special", "torch.functional"}
    for title, part in report.namespaces.items():
        assert part is not None, title
        assert part.ratio >= 0.95, (title, part.uncovered)
        assert part.total > 15, title  # every op of the namespace is counted


def _module_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    body = list(tree.body)
    for stmt in body:
        if isinstance(stmt, ast.If):  # ``if <layer>.MYPY:``: one branch per checker
            body.extend(stmt.body + stmt.orelse)
        elif isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            names |= {t.id for t in stmt.targets if isinstance(t, ast.Name)}
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in stmt.names}
    return names


@pytest.mark.parametrize("module", ["linalg/__init__", "fft/__init__", "special/__init__"])
def test_namespace_stub_declares_every_public_name_of_the_module(module: str) -> None:
    """The stub replaces torch's module for the checkers: a name it lacks would be a new error."""
    source = ast.parse((torch_dir() / f"{module}.py").read_text())
    stub = ast.parse(overlay().files[f"{module}.pyi"])
    public = {n for n in _module_names(source) if not n.startswith("_")} - {"torch"}
    declared = _module_names(stub)
    assert public - declared == set()
    ops = {s.name for s in stub.body if isinstance(s, ast.FunctionDef)}
    assert {"eigh", "svd", "vector_norm", "fft", "rfft", "fftfreq", "erf", "xlogy"} & public <= ops


def _in_pyright_order(body: list[ast.stmt]) -> list[ast.FunctionDef]:
    """The module's defs as pyright chains an op's overloads: both branches of an
    ``if <layer>.MYPY:``, in order."""
    out: list[ast.FunctionDef] = []
    for stmt in body:
        if isinstance(stmt, ast.If):
            out += _in_pyright_order(stmt.body + stmt.orelse)
        elif isinstance(stmt, ast.FunctionDef):
            out.append(stmt)
    return out


@pytest.mark.parametrize("module", ["linalg/__init__", "fft/__init__", "special/__init__", "functional"])
def test_the_first_signature_an_editor_shows_is_not_the_bare_guard(module: str) -> None:
    """pyright's and basedpyright's signature help make an op's first overload (that has a
    parameter for the argument under the cursor) the active one: the host reading, the op's
    own parameters on the CPU, comes before the ``Tensor[Never] | Tensor[CPU], *args,
    **kwargs`` guard. In the namespaces every overload carries torch's docs (without them
    the servers look for them in torch's source on every request)."""
    firsts: dict[str, ast.FunctionDef] = {}
    defs = _in_pyright_order(ast.parse(overlay().files[f"{module}.pyi"]).body)
    for fn in defs:
        firsts.setdefault(fn.name, fn)
    guarded = {fn.name for fn in defs if "_dt_Never" in ast.unparse(fn.args)}
    assert len(guarded) > 10
    shown = {n: ast.unparse(firsts[n].args) for n in guarded}
    assert {n for n, params in shown.items() if "_dt_Never" in params} == set()
    assert all("Tensor[_dt_CPU]" in params for params in shown.values())
    if module != "functional":
        assert [fn.name for fn in defs if ast.get_docstring(fn) is None and fn.name in guarded] == []


@pytest.mark.parametrize("module", ["linalg/__init__", "fft/__init__", "special/__init__"])
def test_namespace_defaults_are_the_bindings_values_not_ellipses(module: str) -> None:
    """A ``= ...`` default makes pyright's and basedpyright's signature help look the op up in
    torch's source on every request to print the real value (``torch/fft/__init__.py``
    imports the 0.44 MB ``torch._torch_docs``: 47 -> 6 ms for ``torch.fft.fft(`` in pyright,
    docs/performance.md). The schemas of the three namespaces have only plain literal
    defaults, so none is written ``...``."""
    defs = _in_pyright_order(ast.parse(overlay().files[f"{module}.pyi"]).body)
    defaults = [(fn.name, d) for fn in defs for d in [*fn.args.defaults, *fn.args.kw_defaults] if d is not None]
    assert len(defaults) > 50
    assert [name for name, d in defaults if isinstance(d, ast.Constant) and d.value is Ellipsis] == []
    if module == "fft/__init__":
        fft = next(fn for fn in defs if fn.name == "fft" and "_DeviceT" in ast.unparse(fn.args))
        assert ast.unparse(fft.args) == ("input: Tensor[_DeviceT], n: _int | SymInt | None=None, dim: _int=-1, "
                                         "norm: str | None=None, *, out: Tensor[_DeviceT] | None=None")


@pytest.mark.parametrize(("schema", "python"), [
    ("None", "None"), ("-1", "-1"), ("1.0", "1.0"), ("1e-05", "1e-05"), ("True", "True"), ('"L"', '"L"'),
    ("'fro'", '"fro"'), ("[-2,-1]", "(-2, -1)"), ("[0]", "(0,)"), ("[]", "()"),
    ("Mean", None), ("at::kLong", None), ("contiguous_format", None),
])
def test_schema_defaults_as_python(schema: str, python: str | None) -> None:
    from device_types_stubs.native import python_default

    assert python_default(schema) == python


def test_functional_stub_defines_everything_torch_exports() -> None:
    source = ast.parse((torch_dir() / "functional.py").read_text())
    exported = next(
        {e.value for e in s.value.elts if isinstance(e, ast.Constant)}
        for s in source.body
        if isinstance(s, ast.Assign) and isinstance(s.value, ast.List) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in s.targets)
    )
    assert exported - _module_names(ast.parse(overlay().files["functional.pyi"])) == set()


def test_namespace_named_results_are_device_generic_return_types() -> None:
    return_types = overlay().files["return_types.pyi"]
    assert "class linalg_eigh(tuple[Tensor[_DeviceT], Tensor[_DeviceT]], _dt_Generic[_DeviceT]):" in return_types
    assert "-> torch.return_types.linalg_eigh[_DeviceT]" in overlay().files["linalg/__init__.pyi"]


def test_missing_and_stale_overlay_explain_in_one_line(tmp_path: Path) -> None:
    fresh, line = installed_state(tmp_path / "torch-stubs")
    assert not fresh and "\n" not in line
    assert line.startswith("no device-types overlay for torch") and line.endswith("run `device-types stubs install`")
    (tmp_path / "torch-stubs").mkdir()
    (tmp_path / "torch-stubs" / STAMP).write_text(json.dumps({"torch": "2.0.0", "generator": "x"}))
    fresh, line = installed_state(tmp_path / "torch-stubs")
    assert not fresh
    assert line.startswith("the overlay was generated for torch 2.0.0, but torch 2.13")


def test_no_torch_is_a_clean_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(overlay_module.importlib.util, "find_spec", lambda name: None)
    with pytest.raises(OverlayError, match="torch is not installed"):
        build_overlay()


def test_cli_install_to_target_and_check(tmp_path: Path) -> None:
    target = tmp_path / "torch-stubs"
    out = subprocess.run([*CLI, "stubs", "install", "--target", str(target)], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert (target / "_C" / "_VariableFunctions.pyi").is_file()
    assert json.loads((target / STAMP).read_text())["torch"].startswith("2.13")
    check = subprocess.run([*CLI, "stubs", "check"], capture_output=True, text=True)
    assert check.returncode == 0 and check.stdout.startswith("device-types overlay is up to date")


def test_cli_usage_errors() -> None:
    out = subprocess.run([*CLI, "frobnicate"], capture_output=True, text=True)
    assert out.returncode == 2
    assert "argument COMMAND: invalid choice: 'frobnicate'" in out.stderr
    assert "Traceback" not in out.stderr


def test_cli_install_into_missing_directory_is_one_line(tmp_path: Path) -> None:
    out = subprocess.run([*CLI, "stubs", "install", "--target", str(tmp_path / "no" / "such" / "torch-stubs")],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.startswith("device-types: cannot write the overlay to") and "Traceback" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_factory_call_without_device_fails_like_stock_torch(tmp_path: Path, fresh_overlay: None) -> None:
    """A device-less factory call with a bad argument gets stock torch's one argument error
    in pyright, not an added "No overloads": the device overloads require ``device=``, so
    only one overload per torch signature passes pyright's arity check (torchvision's
    ``roi_heads.py:466``; docs/performance.md, round 4)."""
    from tests.checkers import run_pyright

    source = tmp_path / "bad_size.py"
    source.write_text("import torch\n\n\ndef pad(t: torch.Tensor) -> None:\n    torch.zeros(t, 3)\n", encoding="utf-8")
    config = tmp_path / "pyrightconfig.json"
    config.write_text('{"typeCheckingMode": "standard"}\n', encoding="utf-8")
    found = run_pyright("pyright", [source], config=config)
    assert [(d.line, d.code) for d in found] == [(5, "reportArgumentType")], found
