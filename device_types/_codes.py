"""The product's one code registry: every finding code of the mypy plugin, ``device-types
check`` and ``device-types audit``, with what ``device-types explain CODE`` prints.

Each front end takes its codes from here (the plugin's ``ErrorCode``s, the check's and the
audit's code names, SARIF rule metadata, the index of ``docs/errors.md``); a code's name is
written nowhere else. Messages end with :func:`explain_tail`. Torch-free and mypy-free.
Modelled on mypy's ``errorcodes.py`` + ``message_registry.py`` and ruff's rule table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

__all__ = ["Code", "ALL", "BY_NAME", "PLUGIN", "CHECK", "AUDIT", "codes_of", "explain_tail", "explain",
           "markdown_index", "lookup"]

#: The front ends, as ``Code.front_ends`` names them.
PLUGIN: Final = "plugin"
CHECK: Final = "check"
AUDIT: Final = "audit"
FRONT_ENDS: Final = (PLUGIN, CHECK, AUDIT)


@dataclass(frozen=True)
class Code:
    name: str
    front_ends: tuple[str, ...]
    #: One line: what the code means (mypy's ``ErrorCode`` description, SARIF ``shortDescription``).
    summary: str
    bad: str
    good: str
    #: The message each front end prints, with ``{placeholders}``; the plugin formats its
    #: messages from these, the others show their form.
    messages: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    #: ``error`` or ``warning`` (SARIF level, GitHub annotation command).
    severity: str = "error"
    default_enabled: bool = True
    #: How an off-by-default code is turned on.
    enable: str = ""


WHERE: Final = "inside the {device} backend ({prefix})"
KEEP: Final = "keep it on {device} and use an on-device composite of working ops"
CHECK_KEEP: Final = "keep it on {device} with an on-device composite of working ops"
#: The check's readback message: ``how`` is "computes its result there", "writes into the
#: tensor through a host view" or 'drives "memcpy_d2d()" element by element from it';
#: ``via`` the helper chain to the root, ``when`` the path's condition, ``also`` other lines.
READ_BACK: Final = (f'"{{function}}" reads tensor data to the host with {{what}}{{via}} and {{how}}{{when}}{{also}} '
                    f"{WHERE}; {CHECK_KEEP}")


def _code(name: str, front_ends: Iterable[str], summary: str, bad: str, good: str,
          messages: dict[str, str] | None = None, *, severity: str = "error", default_enabled: bool = True,
          enable: str = "") -> Code:
    return Code(name, tuple(front_ends), summary, bad.strip("\n"), good.strip("\n"), messages or {}, severity,
                default_enabled, enable)


# --- device-*: the plugin (typed code) and the check (untyped code) --------------------------------

CONFIG: Final = _code(
    "device-config", [PLUGIN], "Malformed [tool.device_types] configuration",
    '[tool.device_types]\nbackends = { "pkg._backends" = "mps", "pkg._backends.cuda" = "cuda" }   # overlapping keys',
    '[tool.device_types]\nbackends = { "pkg._backends.mps" = "mps", "pkg._backends.cuda" = "cuda" }',
    {PLUGIN: "{message}"})
CPU_CALL: Final = _code(
    "device-cpu-call", [PLUGIN, CHECK], "Tensor moved to the host (.cpu(), .pin_memory()) in a backend",
    "def softplus(x: Tensor[MPS]) -> Tensor[MPS]:\n"
    "    return torch.nn.functional.softplus(x.cpu()).to(x.device)   # kernel bug worked around on the host",
    "def softplus(x: Tensor[MPS]) -> Tensor[MPS]:\n"
    "    return torch.log1p(torch.exp(x))                            # composite of working on-device ops",
    {PLUGIN: f'"{{method}}()" moves the tensor to the host {WHERE}; {KEEP}',
     CHECK: READ_BACK})
READBACK: Final = _code(
    "device-readback", [PLUGIN, CHECK],
    "Tensor data read back to the host (.numpy(), .tolist(), a readback helper) in a backend",
    "idx = [i for i, v in enumerate(mask.tolist()) if v]\nout = x[torch.tensor(idx, device=x.device)]",
    "out = x[mask.nonzero().squeeze(1)]",
    {PLUGIN: f'"{{method}}()" copies tensor data to the host {WHERE}; {KEEP}',
     CHECK: READ_BACK})
CPU_TARGET: Final = _code(
    "device-cpu-target", [PLUGIN, CHECK], "Transfer, copy or factory that targets the CPU in a backend",
    'y = torch.empty(n, device="cpu")\ny.copy_(x)',
    "y = torch.empty(n, device=x.device)\ny.copy_(x)",
    {PLUGIN: f"{{what}} targets the CPU {WHERE}; {KEEP}",
     CHECK: READ_BACK})
NUMPY: Final = _code(
    "device-numpy", [PLUGIN, CHECK], "Op result computed or built on the host (numpy, a host RNG) in a backend",
    "r = torch.from_numpy(np.remainder(x.cpu().numpy(), y.cpu().numpy())).to(x.device)",
    "r = x - y * torch.floor(x / y)                      # where-based remainder, Python's sign convention\n"
    "r = torch.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)",
    {PLUGIN: f"{{what}} computes on host (numpy) data {WHERE}; use the torch op on {{device}} tensors instead",
     CHECK: f'"{{function}}" builds its result on the host with {{what}}{{via}} and {{how}}{{when}}{{also}} '
            f"{WHERE}; create it on {{device}} with device ops (fill, arange, a device RNG)"})
CPU_SIGNATURE: Final = _code(
    "device-cpu-signature", [PLUGIN], "Backend function that takes or returns Tensor[CPU]",
    "def lengths(x: Tensor[MPS]) -> Tensor[CPU]: ...",
    "def lengths(x: Tensor[MPS]) -> Tensor[MPS]: ...",
    {PLUGIN: f'"{{func}}" takes or returns Tensor[CPU] {WHERE}; take and return Tensor[{{marker}}] instead'})
CPU_OPERAND: Final = _code(
    "device-cpu-operand", [PLUGIN], "Op that consumes a CPU tensor in a backend",
    "def scale(x: torch.Tensor, w: torch.Tensor = torch.ones(3)) -> torch.Tensor:\n"
    "    return x * w + torch.arange(3)",
    "def scale(x: torch.Tensor, w: torch.Tensor | None = None) -> torch.Tensor:\n"
    "    w = torch.ones(3, device=x.device) if w is None else w\n"
    "    return x * w + torch.arange(3, device=x.device)",
    {PLUGIN: f'"{{op}}" consumes a CPU tensor ({{origin}}) {WHERE}; create it on {{device}} (device=x.device)'})
MIXED_DEVICES: Final = _code(
    "device-mixed-devices", [PLUGIN], "Op that mixes tensors of two devices in a backend",
    "def f(x: Tensor[MPS], y: Tensor[CUDA]) -> Tensor[MPS]:\n    return torch.add(x, y)",
    "def f(x: Tensor[MPS], y: Tensor[MPS]) -> Tensor[MPS]:\n    return torch.add(x, y)",
    {PLUGIN: f'"{{op}}" mixes tensors on {{devices}} {WHERE}; keep every operand on {{device}}'})
WRONG_DEVICE: Final = _code(
    "device-wrong-device", [PLUGIN], "Tensor on another device than the backend's",
    'def f(x: Tensor[MPS]) -> Tensor[MPS]:\n    return x.to("cuda")',
    "def f(x: Tensor[MPS]) -> Tensor[MPS]:\n    return x.to(torch.float16)",
    {PLUGIN: f"{{what}} is on {{other}}, not {{device}}, {WHERE}; keep it on {{device}}"})
HOST_SYNC: Final = _code(
    "device-host-sync", [PLUGIN, CHECK],
    "Host sync (.item(), int(t), if t:, nonzero, x[mask], a readback used only for control flow) in a backend "
    "(opt-in)",
    "if x.abs().max().item() > 1.0:\n    x = x / x.abs().max()",
    "m = x.abs().max()\nx = torch.where(m > 1.0, x / m, x)",
    {PLUGIN: f"{{what}} waits for the device {{reason}} {WHERE}; {{advice}}",
     CHECK: f'"{{function}}" reads device data to the host with {{what}} only to decide control flow or pass a '
            f"scalar (a host sync) {WHERE}; keep the value on the device or validate without reading it back"},
    severity="warning", default_enabled=False,
    enable="mypy --enable-error-code device-host-sync; device-types check --enable device-host-sync")
UNKNOWN_OPERAND: Final = _code(
    "device-unknown-operand", [PLUGIN],
    "Tensor of unknown device (Tensor[Any], Any) mixed into device math in a backend (opt-in)",
    "from pkg.helpers import positions            # def positions(n: int) -> torch.Tensor: return torch.arange(n)\n"
    "def add_positions(x: Tensor[MPS], n: int) -> Tensor[MPS]:\n"
    "    return x + positions(n)                   # positions(n) is Tensor[Any]: on the CPU at run time",
    "def positions(n: int, device: torch.device) -> torch.Tensor:   # the helper takes the device\n"
    "    return torch.arange(n, device=device)\n"
    "def add_positions(x: Tensor[MPS], n: int) -> Tensor[MPS]:\n"
    "    return x + assert_device(positions(n, x.device), MPS)        # or type the helper -> Tensor[MPS]",
    {PLUGIN: f'"{{op}}" mixes a tensor on {{device}} with {{what}} of unknown device ({{type}}) {WHERE}; '
             f"type it Tensor[{{marker}}] where it is made, or check it with assert_device"},
    default_enabled=False, enable="mypy --enable-error-code device-unknown-operand")
UNKNOWN_DEVICE: Final = _code(
    "device-unknown-device", [PLUGIN], "Device string that names no device",
    'torch.zeros(3, device="gpu")', 'torch.zeros(3, device="cuda:0")',
    {PLUGIN: 'unknown device "{text}"; valid device types are {valid} (optionally with an index, e.g. "cuda:1")'})
CPU_BACKEND: Final = _code(
    "device-cpu-backend", [CHECK], "CPU-backend op called from a device backend",
    "from ..cpu import ops as cpu_ops\n\ndef argsort(a):\n"
    "    return cpu_ops.argsort(a)          # the CPU kernel runs on device data",
    "def argsort(a):\n    return sort(a)[1]                 # an on-device composite, or the native kernel",
    {CHECK: f'"{{function}}" calls the CPU backend\'s "{{callee}}()" on device data{{when}} {WHERE}; {CHECK_KEEP}'})
INDIRECT: Final = _code(
    "device-indirect-fallback", [CHECK], "Call of another backend function that falls back to the host",
    "def sort(a):\n    return from_numpy(np.sort(to_numpy(a)))\n\ndef topk(a, k):\n    return sort(a)[:k]",
    "def sort(a):\n    return kernels.sort(a)            # fix the callee: every caller is clean\n\n"
    "def topk(a, k):\n    return sort(a)[:k]",
    {CHECK: f'"{{function}}" calls "{{callee}}()", which falls back to the host{{when}} ({{chain}}: {{what}} at '
            f'{{root}}) {WHERE}; fix "{{callee}}" on the device or compose on-device ops here'})
UNANALYSED: Final = _code(
    "device-unanalysed", [CHECK], "A file device-types check could not read or parse",
    "pkg/_backends/mps/broken.py with a syntax error (or NUL bytes, or over 4 MiB)",
    "source that parses; or leave the file out of the paths given to the check",
    {CHECK: "syntax error, file not analysed: {error}"})

# --- audit-*: markers in backend code against the known-issues table ------------------------------

_A = [AUDIT]
#: The policy's marker form, quoted by the audit's messages and examples.
MARKER_FORM: Final = "# TODO: re-enable native kernel when <platform> fixes <issue>"

DOCS_MISSING: Final = _code(
    "audit-docs-missing", _A, "The known-issues document does not exist",
    "no docs/known-kernel-issues.md", "copy the template (an empty table passes)",
    {AUDIT: "{docs} does not exist; create it with a markdown table whose columns are {columns}"})
TABLE_MISSING: Final = _code(
    "audit-table-missing", _A, "The document has no table with the rule-4 fields",
    "None yet.   (or a | Field | Meaning | table)",
    "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
    "|---|---|---|---|---|---|",
    {AUDIT: "{docs} has no known-issues table; add one with the columns {columns}"})
TABLE_MISSING_COLUMN: Final = _code(
    "audit-table-missing-column", _A,
    "An issue table lacks the op, error, workaround or platform field (strict: Backend or Status)",
    "| Op | Backend | Error | Platform | Status |", "| Op | Backend | Error | Composite workaround | Platform | Status |",
    {AUDIT: "table has no {column} column; add it"})
TABLE_NO_BACKEND: Final = _code(
    "audit-table-no-backend", _A, "Tables without a Backend column whose backend nothing names",
    "## 310B\n| Op | ACLNN kernel | Error | Workaround | Verified on |     (no platforms configured)",
    '[tool.device_types]\nplatforms = { "310B" = "npu" }',
    {AUDIT: "{n} tables ({headings}) have no 'Backend' column and neither a heading nor the document's path "
            "names a backend; map the headings in [tool.device_types] platforms"})
TABLE_HEADER_NAME: Final = _code(
    "audit-table-header-name", _A, "Recognised columns not named as the policy names them (strict)",
    "| Op | Error | Workaround | Verified on | ... |",
    "| Op name | Error description | Composite workaround | Platform version | ... |",
    {AUDIT: "columns {found} are {policy} in the policy's schema; rename them (device-types audit --fix does)"},
    default_enabled=False, enable="device-types audit --strict, or strict = true in [tool.device_types]")
TABLE_UNKNOWN_COLUMN: Final = _code(
    "audit-table-unknown-column", _A, "A column is not recognised while a field is missing",
    "| Op | Backend | Error | Fix | Platform | Status |",
    "| Op | Backend | Error | Composite workaround | Platform | Status |",
    {AUDIT: "column '{header}' not recognised; rename it to {title}"})
TABLE_DUPLICATE_COLUMN: Final = _code(
    "audit-table-duplicate-column", _A, "Two columns read as the same field",
    "| Op | Device | Backend | ... |", "| Op | Backend | ... |",
    {AUDIT: "columns {columns} both read as {field}; keep one"})
TABLE_RAGGED_ROW: Final = _code(
    "audit-table-ragged-row", _A, "A row has more or fewer cells than the header",
    "| aten.baddbmm | mps | crash | bmm + add | macOS 15.3 |          (5 of 6 cells)",
    "| aten.baddbmm | mps | crash | bmm + add | macOS 15.3 | open (workaround active) |   (a pipe in a cell: \\|)",
    {AUDIT: "row has {n} cells, the header {m}"})
TABLE_EMPTY_CELL: Final = _code(
    "audit-table-empty-cell", _A, "A required cell is empty or just a dash",
    "| aten.baddbmm | mps | | bmm + add | - | open (workaround active) |",
    "| aten.baddbmm | mps | crash on batched inputs | bmm + add | macOS 15.3 | open (workaround active) |",
    {AUDIT: "row for {op} has an empty '{column}' cell; fill in {what}"})
TABLE_BAD_OP: Final = _code(
    "audit-table-bad-op", _A, "The Op cell names no op",
    "| baddbmm crash | ...      or      | 6-op composite | ...",
    "| aten.baddbmm | ...      or      | `baddbmm` (float16) | ...      or      | `lt` / `gt` | ...",
    {AUDIT: "Op cell {cell!r} names no op; write the op"})
TABLE_BAD_BACKEND: Final = _code(
    "audit-table-bad-backend", _A, "Backend is not a known device",
    "| ... | Metal | ...      or      | ... | mps, cuda | ...", "| ... | mps | ...   (one row per backend)",
    {AUDIT: "Backend {cell!r} is not one of {devices}"})
TABLE_BAD_STATUS: Final = _code(
    "audit-table-bad-status", _A, "Status is neither open nor resolved",
    "| ... | fixed |      or      | ... | WIP |",
    "| ... | open (workaround active) |      or      | ... | resolved (native kernel re-enabled) |",
    {AUDIT: "Status {cell!r} is neither open nor resolved; write 'open (workaround active)' or "
            "'resolved (native kernel re-enabled)'"})
TABLE_STATUS_WORDING: Final = _code(
    "audit-table-status-wording", _A, "Status reads as open or resolved, but not in the policy's words (strict)",
    "| ... | Open |      or      | ... | resolved |", "| ... | open (workaround active) |",
    {AUDIT: "Status {cell!r} is not in the policy's words; write {status}"},
    default_enabled=False, enable="device-types audit --strict, or strict = true in [tool.device_types]")
TABLE_DUPLICATE_ROW: Final = _code(
    "audit-table-duplicate-row", _A, "The same op and backend appear twice (also across tables)",
    "aten.baddbmm | mps   in the M3 and in the M4 section (M3 and M4 not in platforms)",
    'one row with both platform versions, or platforms = { "M3" = "mps", "M4" = "mps" } when each chip has its own',
    {AUDIT: "{op} on {backend} is also listed at line {line}; keep one row"})
MARKER_MALFORMED: Final = _code(
    "audit-marker-malformed", _A, "A marker lacks a platform or an issue, or is not in the rule-3 form",
    "# TODO: re-enable native kernel when fixes aten.baddbmm crash       # no platform\n"
    "# TODO: re-enable native kernel when macOS 15.4 fixes               # no issue\n"
    "# FIXME re-enable native kernel once Apple ships a fix              # not the form",
    "# TODO: re-enable native kernel when macOS 15.4 fixes aten.baddbmm crash",
    {AUDIT: "marker names no {part}; say {what}"})
MARKER_WORDING: Final = _code(
    "audit-marker-wording", _A, "A readable marker not in the template's words (strict)",
    "# TODO: re-enable native aclnnAvgPool2d when CANN fixes 161002 on 910B",
    "# TODO: re-enable native kernel when CANN fixes aclnnAvgPool2d 161002 on 910B   (what --fix writes)",
    {AUDIT: f"marker does not use the policy's wording '{MARKER_FORM}'; device-types audit --fix rewrites it, "
            "keeping the platform and the issue"},
    default_enabled=False, enable="device-types audit --strict, or strict = true in [tool.device_types]")
UNGUARDED_MARKER: Final = _code(
    "audit-unguarded-marker", _A, "No guard at the marker, so the native kernel may be gone",
    "def addmm(input, mat1, mat2):            # nothing switched off follows the marker\n"
    "    # TODO: re-enable native kernel when macOS 15.4 fixes aten.addmm\n"
    "    return addmm_composite(input, mat1, mat2)",
    "def addmm(input, mat1, mat2):\n"
    "    # TODO: re-enable native kernel when macOS 15.4 fixes aten.addmm\n"
    "    if USE_NATIVE_ADDMM:\n        return _native_addmm(input, mat1, mat2)\n"
    "    return addmm_composite(input, mat1, mat2)",
    {AUDIT: "no guard keeps the native kernel here; put the marker on or directly above the 'if'/'try' that "
            "switches to the native kernel, inside that branch, above the preserved native 'def', or on its "
            "'USE_NATIVE_... = False' flag"})
MARKER_NO_OP: Final = _code(
    "audit-marker-no-op", _A, "Nothing tells which op the marker is for",
    "# TODO: re-enable native kernel when macOS 15.4 fixes the Metal crash     (above a module-level flag)",
    "# TODO: re-enable native kernel when macOS 15.4 fixes the aten.baddbmm Metal crash",
    {AUDIT: "marker names no op and is in no function; name the op in the marker ('fixes aten.<op> ...')"})
MISSING_ROW: Final = _code(
    "audit-missing-row", _A, "A marker has no row for its op (or the kernel it names) and backend",
    "a marker for aten.softmax in _backends/npu/ and no softmax | npu row",
    "| aten.softmax | npu | ... | open (workaround active) |",
    {AUDIT: "no {backend} row in {docs} matches this marker in {function}(); add a row for the op with Backend "
            "'{backend}' and Status 'open (workaround active)'"})
STALE_MARKER: Final = _code(
    "audit-stale-marker", _A, "The row is resolved but the marker is still in the code",
    "| aten.addmm | mps | ... | resolved (native kernel re-enabled) |   and a marker for it",
    "delete the marker and the guard (call the native kernel), or set the row back to open",
    {AUDIT: "{docs}:{line} says {op} on {backend} is resolved, but this marker is still here; remove the marker "
            "and its guard, or set the row back to 'open (workaround active)'"})
UNREADABLE_SOURCE: Final = _code(
    "audit-unreadable-source", _A, "A backend file could not be read, decoded or parsed; its markers were not checked",
    "a Latin-1 byte or a syntax error in ops.py", "UTF-8 source that imports",
    {AUDIT: "{reason}; markers in this file were not checked"})
ORPHAN_ROW: Final = _code(
    "audit-orphan-row", _A, "An open row has no marker in its backend",
    "| aten.index_put | npu | ... | open (workaround active) |   and no marker in _backends/npu/",
    "# TODO: re-enable native kernel when CANN 8.1 fixes aten.index_put hang   (at the guarded native kernel)\n"
    "or Status 'resolved (native kernel re-enabled)' once the native kernel is back",
    {AUDIT: f"{{op}} on {{backend}} is open, but no marker in the {{backend}} backend matches it; keep the native "
            f"kernel behind a guard marked '{MARKER_FORM}', or set Status to 'resolved (native kernel re-enabled)'"})
MISSING_WORKAROUND: Final = _code(
    "audit-missing-workaround", _A, "The composite function named in an open row is not defined in that backend",
    "Composite workaround `baddbmm_composite`: bmm + mul + add   and no def baddbmm_composite in _backends/mps/",
    "def baddbmm_composite(...) in _backends/mps/, or the name fixed in the row",
    {AUDIT: "'Composite workaround' names `{name}`, but no function {name} is defined in the {backend} backend "
            "({path}); fix the name or add the composite"})


ALL: Final = tuple(v for v in list(globals().values()) if isinstance(v, Code))
BY_NAME: Final = {c.name: c for c in ALL}


def codes_of(front_end: str) -> tuple[Code, ...]:
    return tuple(c for c in ALL if front_end in c.front_ends)


def lookup(name: str) -> Code | None:
    return BY_NAME.get(name)


def explain_command(name: str) -> str:
    return f"device-types explain {name}"


def explain_tail(code: Code | str) -> str:
    """What every message ends with (after ``; ``): the command that explains the code."""
    return f"run {explain_command(code if isinstance(code, str) else code.name)}"


def explain(code: Code) -> str:
    """``device-types explain CODE``: the registry's text and examples."""
    on = "yes" if code.default_enabled else f"no (turn it on: {code.enable})"
    lines = [f"{code.name}: {code.summary}", "",
             f"reported by: {', '.join(code.front_ends)}", f"on by default: {on}", f"severity: {code.severity}"]
    for front_end, form in code.messages.items():
        lines += ["", f"message ({front_end}):", f"  {form}"]
    lines += ["", "bad:", *_indented(code.bad), "", "good:", *_indented(code.good)]
    return "\n".join(lines)


def _indented(text: str) -> list[str]:
    return [f"  {line}" if line else "" for line in text.splitlines()]


def markdown_index() -> str:
    """The index table of ``docs/errors.md`` (a test keeps the page equal to it)."""
    rows = ["| code | reported by | on by default | summary |", "|---|---|---|---|"]
    for c in ALL:
        on = "yes" if c.default_enabled else "**no**"
        rows.append(f"| [`{c.name}`](#{c.name}) | {', '.join(c.front_ends)} | {on} | {c.summary} |")
    return "\n".join(rows)
