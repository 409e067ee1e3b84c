"""Where does the overlay's pyright cost come from? Variants of the installed overlay, one run.

Each variant is the installed overlay with one part undone or changed; pyright (or
basedpyright) checks the same tree under every variant, interleaved (the order rotates
each repetition), and the table gives each variant's CPU time (rusage) against torch's
own stubs:

  stock            no overlay: torch's own stubs (the baseline)
  overlay          the overlay as installed
  functions-stock  _C/_VariableFunctions.pyi back to torch's own (every ``torch.*`` function)
  factories-stock  only the functions with a ``device`` parameter back to torch's own
  methods-bare     TensorBase's methods without the device (``Tensor[_DeviceT]`` -> ``Tensor``):
                   what the generic methods cost
  no-names         factories without their device-name overloads (``device="cuda"``)
  one-name         one literal per device name (``"cuda"``, not ``"cuda:0"``..``"cuda:7"``)
  no-guard         ``never-guards`` without its ``device: Never`` overloads (an ``Any`` device is
                   Unknown in pyright): what the guards cost in that layout
  invariant-device ``torch.device`` invariant in its device, as before this round: ``x.device``
                   of a bare tensor is then ``device[Any]`` with Any in an invariant position,
                   and pyright evaluates every later overload of each factory it is passed to
  covariant-tensor ``Tensor``'s device covariant too (measurement only: pyright would then widen
                   ``torch.bmm(a_mps, b_cuda)``'s device to ``MPS | CUDA`` instead of an error):
                   what the invariant ``Tensor[Any]`` of bare tensors costs
  no-tensor-data   without the ``data: Tensor[D]`` overloads of ``torch.tensor``/``as_tensor``/
                   ``asarray`` (``torch.tensor(t)`` keeps ``t``'s device)
  optional-device  built by the generator: the device overloads with a default ``device``,
                   as in round 3 (``REQUIRED_DEVICE_KEYWORD`` off)
  merged-cpu-device built by the generator: CPU and device-object overloads merged through a
                   TypeVar with ``default=CPU`` (``MERGED_CPU_DEVICE`` on; unsound, not shipped)
  never-guards     built by the generator: an unknown device caught by a first ``device: Never``
                   overload instead of the device-object one (``NEVER_GUARDS`` on), as before
                   issue 26's last round
  per-original-overloads built by the generator: each of torch's signatures of a factory with
                   device overloads of its own, none shared (``MERGE_ORIGINALS`` off)
  keyword-guards   built by the generator: the unknown-device overloads keyword-only and no
                   donor one for ``.to(other)``, as before round 5 (``POSITIONAL_GUARDS`` off)
  device-where-unused built by the generator: functions without a tensor result keep the
                   device TypeVar on their one tensor parameter (``DEVICE_WHERE_UNUSED`` on; round 4)
  ellipsis-defaults built by the generator: device-typed parameters' ``= None`` written ``= ...``
                   (``ELLIPSIS_DEFAULTS`` on)
  no-docstrings    the overlay's ``_C/_VariableFunctions.pyi`` without docstrings (measurement
                   only: hovers would lose torch's documentation): what parsing them costs
  stock-no-docstrings functions-stock without docstrings: the same for torch's own file
  module-functions-stock every module of functions back to torch's own: ``_C/_VariableFunctions``,
                   ``_C/_nn``, ``nn.functional`` (their stubs) and ``torch.functional`` (its source)

``--micro FORM`` checks a file of 1,500 one-call functions instead of a tree, one call
form per run (``bare``: ``torch.ones(n, 1, device=x.device)`` with ``x: torch.Tensor``;
``typed``: the same with ``x: Tensor[CUDA]``; ``none``: ``torch.ones(n, 1)``; ``name``:
``device="cuda"``; ``import``: no call, the fixed cost; ``tensor-list``, ``tensor-list-var``,
``tensor-setitem``: ``torch.tensor(seq, dtype=torch.long)`` returned, assigned, and as
the value of ``t[0, :len(seq)] = ...``; ``none-unknown``, ``tensor-unknown``: with an
unannotated argument; ``full``: ``torch.full((n, n), 0, dtype=torch.long)``), to
compare encodings per call. MICRO_FORMS lists them.

The variants are measurements, not options: each one loses something the overlay types
(docs/performance.md says what). The installed ``torch-stubs`` is moved aside during the
run and always put back (also on SIGTERM/SIGINT).

    .venv/bin/python benchmarks/overlay_variants.py                  # the model tree
    .venv/bin/python benchmarks/overlay_variants.py --real torchmetrics==1.9.0:torchmetrics
    .venv/bin/python benchmarks/overlay_variants.py --micro bare --only invariant-device
    .venv/bin/python benchmarks/overlay_variants.py --mypy-cache --only functions-stock,factories-stock
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gen_torch_tree import DEFAULT_OUT, generate  # noqa: E402
from overlay_bench import OverlayToggle, ensure_overlay, overlay_dir, restore_on_signals  # noqa: E402

BIN = Path(sys.executable).parent
FUNCTIONS = "_C/_VariableFunctions.pyi"
C_MODULE = "_C/__init__.pyi"
DEVICE_NAMES = ("_dt_CUDAName", "_dt_MPSName", "_dt_NPUName", "_dt_XPUName")


# --------------------------------------------------------------------------- editing stubs


def _defs(source: str) -> list[tuple[str, int, int, ast.FunctionDef]]:
    """Top-level defs as (name, first line incl. decorators (0-based), end line, node)."""
    out = []
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef):
            start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
            out.append((node.name, start, node.end_lineno or node.lineno, node))
    return out


def _device_annotation(fn: ast.FunctionDef) -> str | None:
    a = fn.args
    for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
        if arg.arg == "device" and arg.annotation is not None:
            return ast.unparse(arg.annotation)
    return None


def revert_functions(overlay: str, stock: str, keep: Callable[[str], bool]) -> str:
    """``overlay`` with every function for which ``keep(name)`` is false replaced by torch's own."""
    lines, stock_lines = overlay.splitlines(keepends=True), stock.splitlines(keepends=True)
    spans: dict[str, list[int]] = {}
    for name, start, end, _ in _defs(overlay):
        spans.setdefault(name, [start, end])[1] = end
    stock_spans: dict[str, list[int]] = {}
    for name, start, end, _ in _defs(stock):
        stock_spans.setdefault(name, [start, end])[1] = end
    out, pos = [], 0
    for name, (start, end) in sorted(spans.items(), key=lambda item: item[1][0]):
        if keep(name) or name not in stock_spans:
            continue
        out += lines[pos:start]
        s, e = stock_spans[name]
        out += stock_lines[s:e]
        pos = end
    return "".join(out + lines[pos:])


def drop_overloads(source: str, annotations: set[str]) -> str:
    """``source`` without the overloads whose device parameter has one of ``annotations``."""
    lines = source.splitlines(keepends=True)
    for _, start, end, node in sorted(_defs(source), key=lambda d: -d[1]):
        if _device_annotation(node) in annotations:
            del lines[start:end]
    return "".join(lines)


def drop_tensor_data(source: str) -> str:
    """``source`` without the overloads that keep a tensor argument's device (``torch.tensor(t)``)."""
    lines = source.splitlines(keepends=True)
    for _, start, end, node in sorted(_defs(source), key=lambda d: -d[1]):
        a = node.args
        if any(p.arg in ("data", "obj") and p.annotation is not None and ast.unparse(p.annotation) == "Tensor[_DeviceT]"
               for p in [*a.posonlyargs, *a.args]):
            del lines[start:end]
    return "".join(lines)


def bare_methods(source: str) -> str:
    """TensorBase with ``Tensor[_DeviceT]`` written ``Tensor`` in its methods."""
    start = source.index("class TensorBase(")
    end = source.index("\nclass ", start + 1)
    head, _, body = source[start:end].partition("\n")
    return source[:start] + head + "\n" + body.replace("Tensor[_DeviceT]", "Tensor") + source[end:]


def no_docstrings(source: str) -> str:
    """``source`` with every function's docstring written ``...`` (what parsing them costs)."""
    lines = source.splitlines(keepends=True)
    for _, _, _, node in sorted(_defs(source), key=lambda d: -d[1]):
        doc = node.body[0]
        if isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str):
            indent = " " * doc.col_offset
            lines[doc.lineno - 1 : doc.end_lineno] = [f"{indent}...\n"]
    return "".join(lines)


def one_name(layer: str) -> str:
    return re.sub(r"(\w+Name: TypeAlias = Literal\['(\w+)')[^\]]*\]", r"\1]", layer)


def invariant_device(c_module: str) -> str:
    """``class device(Generic[_DeviceT_co])`` back to the invariant ``_DeviceT``."""
    start = c_module.index("class device(")
    end = c_module.index("\nclass ", start + 1)
    return c_module[:start] + c_module[start:end].replace("_DeviceT_co", "_DeviceT") + c_module[end:]


def covariant_tensor(layer: str) -> str:
    old = '_DeviceT = TypeVar("_DeviceT", bound=Device, default=Any)'
    return layer.replace(old, old.replace("bound=Device,", "bound=Device, covariant=True,"))


MICRO_CALLS = 1500
#: form -> (parameters, body) of each one-call function.
MICRO_FORMS = {
    "bare": ("x: torch.Tensor", "return torch.ones(n, 1, device=x.device)"),
    "typed": ("x: Tensor[CUDA]", "return torch.ones(n, 1, device=x.device)"),
    "none": ("x: torch.Tensor", "return torch.ones(n, 1)"),
    "name": ("x: torch.Tensor", 'return torch.ones(n, 1, device="cuda")'),
    "import": ("x: torch.Tensor", "return x"),
    "tensor-list": ("seq: list[int]", "return torch.tensor(seq, dtype=torch.long)"),
    "tensor-setitem": ("t: torch.Tensor, seq: list[int]", "t[0, : len(seq)] = torch.tensor(seq, dtype=torch.long)\n    return t"),
    "tensor-list-var": ("seq: list[int]", "y = torch.tensor(seq, dtype=torch.long)\n    return y"),
    "none-unknown": ("x, m", "return torch.ones(m, 1)"),
    "tensor-unknown": ("x, seq", "return torch.tensor(seq, dtype=torch.long)"),
    "full": ("x: torch.Tensor", "return torch.full((n, n), 0, dtype=torch.long)"),
    # device-generic functions that are not factories: what solving ``_DeviceT`` costs a call
    "abs-bare": ("x: torch.Tensor", "return torch.abs(x)"),
    "abs-typed": ("x: Tensor[CUDA]", "return torch.abs(x)"),
    "abs-unknown": ("x, m", "return torch.abs(x)"),
    "abs-var": ("x: torch.Tensor", "y = torch.abs(x)\n    return y"),
    "sum-bare": ("x: torch.Tensor", "return torch.sum(x, dim=1)"),
    "cat-bare": ("x: torch.Tensor", "return torch.cat([x, x], dim=1)"),
    "where-bare": ("x: torch.Tensor", "return torch.where(x > 0, x, 0.0)"),
    "numel-bare": ("x: torch.Tensor", "return x if torch.numel(x) else x"),
}


def micro_tree(form: str, root: Path) -> tuple[Path, str]:
    """A package of one module with MICRO_CALLS one-call functions of ``form``."""
    param, body = MICRO_FORMS[form]
    lines = ["import torch", "from device_types import CUDA, Tensor", ""]
    for i in range(MICRO_CALLS):
        lines += [f"def f{i}({param}, n: int) -> torch.Tensor:", f"    {body}", ""]
    pkg = root / f"micro_{form.replace('-', '_')}"
    if pkg.exists():
        shutil.rmtree(pkg)
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("\n".join(lines), encoding="utf-8")
    return root, pkg.name


def factories(overlay: str) -> set[str]:
    return {name for name, _, _, node in _defs(overlay) if _device_annotation(node) is not None}


#: Variants the generator builds with some of its encoding switches changed
#: (``stubs/signatures.py``): name -> {switch: value}.
GENERATED: dict[str, dict[str, object]] = {
    # the device-name and device-object overloads (and torch's own, where its device is
    # keyword-only) with a default device, as in round 3: a call without device= that
    # pyright evaluates beyond its first match (an argument is partly unknown) evaluates
    # them too
    "optional-device": {"REQUIRED_DEVICE_KEYWORD": False},
    # a factory's CPU and device-object overloads merged through a TypeVar whose default
    # is the CPU (``device: device[D] | "cpu" | None = None -> Tensor[D]``); not shipped:
    # mypy solves D from the call's type context (docs/performance.md)
    "merged-cpu-device": {"MERGED_CPU_DEVICE": True},
    # the unknown-device guards keyword-only, no guard for ``.to(other)``: ``x.to(untyped)``
    # was Unknown in pyright (docs/limits.md, "Fidelity on real libraries")
    "keyword-guards": {"POSITIONAL_GUARDS": False},
    # round 4's encoding: a function whose result holds no tensor (``torch.numel``) with
    # the device TypeVar on its one tensor parameter, where it constrains nothing
    "device-where-unused": {"DEVICE_WHERE_UNUSED": True},
    # a module function's device-typed parameters with the default ``None`` written
    # ``= ...`` (``out: Tensor[_DeviceT] | None = ...``)
    "ellipsis-defaults": {"ELLIPSIS_DEFAULTS": True},
    # an unknown device caught by a first ``device: Never`` overload, as before issue 26's
    # last round (the device object first now): what the editor showed first
    "never-guards": {"NEVER_GUARDS": True},
    # a factory's device overloads made from each of torch's signatures of it, none shared
    # (before issue 26's last round): 120 more overloads, the same types
    "per-original-overloads": {"MERGE_ORIGINALS": False},
    # the op's docstring on its first variant only (before issue 26): the editor's cost,
    # benchmarks/editor_bench.py --overlay; the batch cost here
    "first-overload-docstring": {"DOCUMENT_EVERY_OVERLOAD": False},
    # every overload with the op's full docs (before issue 26's round 3: SUMMARY_DOCS off)
    "every-overload-full-docs": {"SUMMARY_DOCS": False},
}


def generated_variant(target: Path, switches: dict[str, object]) -> Path:
    """The overlay as ``device-types stubs install`` builds it with ``switches`` changed."""
    from device_types_stubs import overlay, signatures

    before = {switch: getattr(signatures, switch) for switch in switches}
    for switch, value in switches.items():
        setattr(signatures, switch, value)
    try:
        built = overlay.build_overlay()
    finally:
        for switch, value in before.items():
            setattr(signatures, switch, value)
    for rel, text in built.files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target


#: Variants made by editing the installed overlay's files (build_variants).
EDITED = ("functions-stock", "factories-stock", "methods-bare", "no-names", "one-name", "no-guard",
          "no-tensor-data", "invariant-device", "covariant-tensor", "no-docstrings", "stock-no-docstrings",
          "module-functions-stock")


#: Edited variants built on a generated one instead of the installed overlay.
EDIT_BASE = {"no-guard": "never-guards"}


def _stock_file(stock: Path, _overlay_text: str) -> str:
    return stock.read_text(encoding="utf-8")


def build_variants(installed: Path, stock_torch: Path, root: Path, wanted: set[str] | None = None) -> dict[str, Path | None]:
    """Each variant (or each of ``wanted``) as a ``torch-stubs`` directory under ``root``
    (None: no overlay)."""
    functions = (installed / FUNCTIONS).read_text(encoding="utf-8")
    stock_functions = (stock_torch / FUNCTIONS).read_text(encoding="utf-8")
    device_functions = factories(functions)
    edits: dict[str, dict[str, Callable[[str], str | None]]] = {
        "functions-stock": {FUNCTIONS: lambda s: revert_functions(s, stock_functions, lambda name: False)},
        "factories-stock": {FUNCTIONS: lambda s: revert_functions(s, stock_functions, lambda name: name not in device_functions)},
        "methods-bare": {C_MODULE: bare_methods},
        "no-names": {FUNCTIONS: lambda s: drop_overloads(s, set(DEVICE_NAMES))},
        "one-name": {"_device_layer.pyi": one_name},
        "no-guard": {FUNCTIONS: lambda s: drop_overloads(s, {"_dt_Never"})},
        "no-tensor-data": {FUNCTIONS: drop_tensor_data},
        "invariant-device": {C_MODULE: invariant_device},
        "covariant-tensor": {"_device_layer.pyi": covariant_tensor},
        "no-docstrings": {FUNCTIONS: no_docstrings},
        "stock-no-docstrings": {FUNCTIONS: lambda s: no_docstrings(revert_functions(s, stock_functions, lambda name: False))},
        "module-functions-stock": {
            **{rel: partial(_stock_file, stock_torch / rel) for rel in (FUNCTIONS, "_C/_nn.pyi", "nn/functional.pyi")},
            "functional.pyi": lambda s: None,
        },
    }
    assert tuple(edits) == EDITED
    variants: dict[str, Path | None] = {"stock": None, "overlay": installed}
    for name, switches in GENERATED.items():
        if wanted is None or name in wanted:
            variants[name] = generated_variant(root / name / "torch-stubs", switches)
    for name, files in edits.items():
        if wanted is not None and name not in wanted:
            continue
        target = root / name / "torch-stubs"
        base = EDIT_BASE.get(name)
        shutil.copytree(installed if base is None else generated_variant(root / f"base-{base}" / "torch-stubs",
                                                                        GENERATED[base]), target)
        for rel, edit in files.items():
            path = target / rel
            edited = edit(path.read_text(encoding="utf-8"))
            if edited is None:
                path.unlink()  # checkers then read torch's own (a .py where torch ships no stub)
            else:
                path.write_text(edited, encoding="utf-8")
        variants[name] = target
    return variants


# --------------------------------------------------------------------------- measuring


class VariantToggle(OverlayToggle):
    """The overlay toggle; a variant linked in the overlay's place is removed first, so
    that restoring (also from a signal handler) never mistakes the link for a re-install."""

    def restore(self) -> None:
        if self.target.is_symlink():
            self.target.unlink()
        super().restore()


def mypy_cache_sizes(cache: Path) -> dict[str, int]:
    """Bytes per module file in a mypy cache (sqlite, one row per file)."""
    import sqlite3

    sizes: dict[str, int] = {}
    for db in cache.glob("*/cache.*.db"):
        with sqlite3.connect(db) as connection:
            for (table,) in connection.execute("select name from sqlite_master where type='table'"):
                for key, *values in connection.execute(f"select * from {table}"):
                    sizes[key] = sizes.get(key, 0) + sum(len(v) for v in values if isinstance(v, (bytes, str)))
    return sizes


def mypy_cache_run(root: Path) -> str:
    """What a warm mypy run reads back: the cache of ``import torch``, in total and the torch._C part."""
    module = root / "mypy_cache_probe"
    module.mkdir(parents=True, exist_ok=True)
    (module / "probe.py").write_text("import torch\n", encoding="utf-8")
    cache = module / "cache"
    shutil.rmtree(cache, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache), "probe.py"], cwd=module, capture_output=True)
    sizes = mypy_cache_sizes(cache)
    shutil.rmtree(cache, ignore_errors=True)
    part = lambda key: sizes.get(key, 0) / 1e6  # noqa: E731
    return (f"all {sum(sizes.values()) / 1e6:.2f} MB, _C/_VariableFunctions {part('torch/_C/_VariableFunctions.data.ff'):.2f} MB, "
            f"_C/__init__ {part('torch/_C/__init__.data.ff'):.2f} MB")


def checker_run(checker: str, tree: Path, package: str) -> tuple[float, str]:
    """CPU seconds of one checker run and its summary line."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen([str(BIN / checker), "--pythonpath", sys.executable, package],
                                cwd=tree, stdout=out, stderr=subprocess.STDOUT)
        _, _, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        text = out.read().decode(errors="replace")
    summary = re.search(r"\d+ errors?, \d+ warnings?", text)
    return usage.ru_utime + usage.ru_stime, summary.group(0) if summary else "no summary"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--checker", default="pyright", choices=("pyright", "basedpyright"))
    parser.add_argument("--families", type=int, default=40, help="model modules in the generated tree")
    parser.add_argument("--real", metavar="DIST==VERSION:PACKAGE", help="check real code from the registry instead")
    parser.add_argument("--micro", choices=sorted(MICRO_FORMS), help="check 1,500 calls of one form instead")
    parser.add_argument("--only", help="comma-separated variants to run (stock and overlay always run)")
    parser.add_argument("--mypy-cache", action="store_true",
                        help="instead of timing: the size of mypy's cache of `import torch` under each variant")
    args = parser.parse_args()

    if args.micro:
        tree, package = micro_tree(args.micro, DEFAULT_OUT.parent / "micro")
        label = f"{MICRO_CALLS} calls, form {args.micro}"
    elif args.real:
        sys.path.insert(0, str(HERE.parent))
        from tests.registry import unpacked

        spec, _, package = args.real.partition(":")
        dist, _, version = spec.partition("==")
        tree = unpacked(dist, version)
        label = spec
    else:
        pkg, _, _ = generate(DEFAULT_OUT, args.families, 0)
        tree, package, label = pkg.parent, pkg.name, f"model tree ({args.families} families)"

    installed = overlay_dir()
    ensure_overlay(installed)
    stock_torch = installed.parent / "torch"
    scratch = Path(tempfile.mkdtemp(prefix="overlay-variants-"))
    toggle = VariantToggle(installed)
    samples: dict[str, list[float]] = {}
    summaries: dict[str, str] = {}
    try:
        wanted = {"stock", "overlay", *args.only.split(",")} if args.only else None
        unknown = (wanted or set()) - {"stock", "overlay", *GENERATED, *EDITED}
        if unknown:
            parser.error(f"unknown variant(s): {', '.join(sorted(unknown))}")
        variants = build_variants(installed, stock_torch, scratch, wanted)
        names = list(variants)
        with restore_on_signals(toggle), toggle.hidden():
            # the installed overlay now lies at toggle.aside; each variant is linked in its place
            variants["overlay"] = toggle.aside
            for name in names if args.mypy_cache else []:
                source = variants[name]
                if source is not None:
                    os.symlink(source, installed)
                try:
                    print(f"mypy cache of `import torch`, {name:20} {mypy_cache_run(scratch)}", flush=True)
                finally:
                    if installed.is_symlink():
                        os.unlink(installed)
            for rep in range(0 if args.mypy_cache else args.reps):
                for name in names[rep % len(names):] + names[:rep % len(names)]:
                    source = variants[name]
                    if source is not None:
                        os.symlink(source, installed)
                    try:
                        seconds, summaries[name] = checker_run(args.checker, tree, package)
                    finally:
                        if installed.is_symlink():  # not after a signal: restore() removed it
                            os.unlink(installed)
                    samples.setdefault(name, []).append(seconds)
                    print(f"rep {rep + 1}/{args.reps} {name:16} {seconds:6.2f} s CPU ({summaries[name]})", flush=True)
    finally:
        toggle.restore()
        shutil.rmtree(scratch, ignore_errors=True)

    if args.mypy_cache:
        return 0
    base = statistics.median(samples["stock"])
    print(f"\n{args.checker} on {label}, CPU time, medians of {args.reps}, conditions interleaved:")
    for name in names:
        median = statistics.median(samples[name])
        low = min(samples[name]) / min(samples["stock"])
        print(f"RESULT overlay variant {name}, {args.checker}, {label} (CPU s) | {base:.2f} | {median:.2f} | "
              f"{median / base:.2f}x | | {summaries[name]}; ratio of minima {low:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
