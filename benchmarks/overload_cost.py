"""What one overload costs basedpyright's completion on a module, by its form: synthetic stubs, one run.

    .venv/bin/python benchmarks/overload_cost.py [--rounds 9]

basedpyright evaluates the type of every public member of a module for a completion after
``module.`` (to mark deprecated names), after every edit again (docs/performance.md). This
generates, in a temporary directory, one stub package per form: 100 functions shaped like
``torch.zeros`` (seven parameters, torch's own docstring length), each with one signature
(``one``) or with seven overloads like the overlay's device overloads (``seven``: the device
object, the CPU, four device names, torch's own), and the seven-overload form changed in one
respect each: no docstrings, ``@overload`` instead of the overlay's alias of it, results
``Tensor`` instead of ``Tensor[CUDA]``..., defaults ``...`` instead of ``None``/``False``.
One basedpyright server per package; in each round, for each package in turn, a
one-character edit of the file that uses it, its re-check, then a completion after
``mm.f``. Printed: the server's CPU time for the completion (all threads, and the main
thread), median of the rounds. The per-overload cost is (seven - one) / 600.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

from editor_bench import CAPABILITIES, cpu_of, rotated, server_command, settings  # noqa: E402

from tests.lsp.client import LspClient, uri  # noqa: E402

LAYER = textwrap.dedent('''\
    from typing import Any, Generic, Literal, TypeAlias
    from typing_extensions import TypeVar
    class Device: ...
    class CPU(Device): ...
    class CUDA(Device): ...
    class MPS(Device): ...
    class NPU(Device): ...
    class XPU(Device): ...
    CPUName: TypeAlias = Literal["cpu", "cpu:0"]
    CUDAName: TypeAlias = Literal["cuda", "cuda:0", "cuda:1"]
    MPSName: TypeAlias = Literal["mps", "mps:0"]
    NPUName: TypeAlias = Literal["npu", "npu:0"]
    XPUName: TypeAlias = Literal["xpu", "xpu:0"]
    D = TypeVar("D", bound=Device, default=Any)
    D2 = TypeVar("D2", bound=Device, default=Any)
    Dc = TypeVar("Dc", bound=Device, covariant=True, default=Any)
    class device(Generic[Dc]): ...
    class Tensor(Generic[D]): ...
    class dtype: ...
    class layout: ...
    class SymInt: ...
    ''')
HEAD = ("from typing import Sequence, overload\nfrom typing import overload as _ov\n"
        "from mm._layer import Tensor, device, dtype as _dtype, layout as _layout, SymInt, CPU, CUDA, MPS, NPU, XPU, "
        "CPUName, CUDAName, MPSName, NPUName, XPUName, D2\n_int = int\n_bool = bool\n")
DOC = '    r"""' + ("zeros(*size, *, out=None, dtype=None) -> Tensor\n\n    Returns a tensor filled with the "
                     "scalar value 0, with the shape defined\n    by the variable argument size.\n") * 6 + '    """\n'
VARIANTS = [("device[D2]", "Tensor[D2]", ""), ("CPUName | None", "Tensor[CPU]", "=None"), ("CUDAName", "Tensor[CUDA]", ""),
            ("MPSName", "Tensor[MPS]", ""), ("NPUName", "Tensor[NPU]", ""), ("XPUName", "Tensor[XPU]", ""),
            ("str | device | int | None", "Tensor", "")]
#: name -> (overloads per function, docstrings, form)
FORMS = {"one": (1, True, ""), "seven": (7, True, ""), "seven-no-docstrings": (7, False, ""),
         "seven-plain-overload": (7, True, "plain-overload"), "seven-bare-results": (7, True, "bare-results"),
         "seven-ellipsis-defaults": (7, True, "ellipsis")}


def generate(root: Path, overloads: int, doc: bool, form: str) -> None:
    package = root / "mm"
    package.mkdir(parents=True)
    (package / "py.typed").write_text("")
    (package / "_layer.pyi").write_text(LAYER)
    out = [HEAD]
    decorator = "@overload" if form == "plain-overload" else "@_ov"
    for i in range(100):
        for j in range(overloads):
            dev, result, default = VARIANTS[j] if overloads > 1 else ("str | device | int | None", "Tensor", "=None")
            if form == "bare-results":
                result = "Tensor"
            params = (f"size: Sequence[_int | SymInt], *, out: Tensor | None=None, dtype: _dtype | None=None, "
                      f"layout: _layout | None=None, device: {dev}{default}, pin_memory: _bool | None=False, "
                      f"requires_grad: _bool | None=False")
            if form == "ellipsis":
                params = params.replace("=None", "=...").replace("=False", "=...")
            out.append(("" if overloads == 1 else decorator + "\n") + f"def f{i}({params}) -> {result}:\n"
                       + (DOC if doc else "    ...\n"))
    (package / "__init__.pyi").write_text("\n".join(out))
    (root / "u.py").write_text("import mm\n\n_probe = 0\nw = mm.f\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="overload-cost-") as tmp:
        roots = {name: Path(tmp) / name for name in FORMS}
        clients: dict[str, list] = {}
        for name, root in roots.items():
            generate(root, *FORMS[name])
            client = LspClient(root, command=server_command("basedpyright"),
                               settings=settings("basedpyright", Path(sys.executable)))
            client.request("initialize", {"processId": os.getpid(), "rootUri": uri(root), "capabilities": CAPABILITIES,
                                          "workspaceFolders": [{"uri": uri(root), "name": name}]}, timeout=300)
            client.notify("initialized", {})
            text = (root / "u.py").read_text()
            client.open(root / "u.py", text)
            client.wait(lambda c=client, r=root: uri(r / "u.py") in c.diagnostics, 300, "the first diagnostics")
            clients[name] = [client, 1, text]
        times: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in FORMS}
        for r in range(args.rounds + 1):
            for name in rotated(list(FORMS), r):
                client, version, text = clients[name]
                clients[name][1] = version = version + 1
                key = uri(roots[name] / "u.py")
                published = client.published.get(key, 0)
                client.change(roots[name] / "u.py", text.replace("_probe = 0", f"_probe = {version % 10}"), version)
                client.wait(lambda c=client, k=key, p=published: c.published.get(k, 0) > p, 120, "the re-check")
                pid = client.proc.pid
                main_thread = Path(f"/proc/{pid}/task/{pid}/schedstat")
                before_all, before_main = cpu_of(pid), int(main_thread.read_text().split()[0]) / 1e9
                client.request("textDocument/completion", {"textDocument": {"uri": key},
                                                           "position": {"line": 3, "character": 8}}, timeout=120)
                if r:  # the first round warms each server up
                    times[name][0].append(cpu_of(pid) - before_all)
                    times[name][1].append(int(main_thread.read_text().split()[0]) / 1e9 - before_main)
        for client, _, _ in clients.values():
            client.close()
    print(f"basedpyright completion after `mm.f`, server CPU, median of {args.rounds}:")
    for name, (all_threads, main) in times.items():
        print(f"  {name:24} all threads {statistics.median(all_threads) * 1000:6.1f} ms, "
              f"main thread {statistics.median(main) * 1000:6.1f} ms")
    one, seven = (statistics.median(times[n][1]) for n in ("one", "seven"))
    print(f"per overload (main thread): {(seven - one) / 600 * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
