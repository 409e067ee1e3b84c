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

__all__ = ["Code", "ALL", "BY_NAME", "PLUGIN", "CHECK", "AUDIT", "CHECK_SINKS", "codes_of", "explain_tail", "explain",
           "example_message", "silence", "markdown_index", "markdown_section", "markdown_sections", "lookup"]

#: The front ends, as ``Code.front_ends`` names them.
PLUGIN: Final = "plugin"
CHECK: Final = "check"
AUDIT: Final = "audit"
FRONT_ENDS: Final = (PLUGIN, CHECK, AUDIT)


@dataclass(frozen=True)
class Code:
    """One error code of the registry: its name, its front ends, its messages and its explanation."""

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
    #: What the code covers, in more words than ``summary`` (markdown, one paragraph).
    detail: str = ""
    #: An example message per front end: the fields its template is filled with, and ``at``
    #: (``path:line``) where it is reported; ``explain`` and docs/errors.md show it rendered.
    examples: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, hash=False)
    #: The language of ``bad`` and ``good`` (a fenced block's info string in docs/errors.md).
    lang: str = "python"
    #: How a finding is silenced, where the front ends' usual ways do not apply.
    silence: str = ""


WHERE: Final = "inside the {device} backend ({prefix})"
KEEP: Final = "keep it on {device} and use an on-device composite of working ops"
CHECK_KEEP: Final = "keep it on {device} with an on-device composite of working ops"
#: The check's readback message: ``how`` is one of ``CHECK_SINKS`` ("computes its result
#: there", "writes into the tensor through a host view", ...); ``via`` the helper chain to the
#: root, ``when`` the path's condition, ``also`` other lines.
READ_BACK: Final = (f'"{{function}}" reads tensor data to the host with {{what}}{{via}} and {{how}}{{when}}{{also}} '
                    f"{WHERE}; {CHECK_KEEP}")

#: How host data reaches the device or the op's result, as the check's direct findings say it
#: (their ``{how}``), by the walk's sink kind (``_check._values.SinkKind``); ``{call}`` is the
#: call as written. Data read back is said to compute the result unless its sink is itself how
#: the host makes the result from it (``Sink.computes_result``: a write through a host view,
#: copies driven element by element).
CHECK_SINKS: Final = {
    "host_view": "writes into the tensor through a host view",
    "write_back": "writes it into a tensor through a host view",
    "drives_copies": "drives element copies into a device tensor from it",
    "drives_call": 'drives "{call}" element by element from it',
    "host_result": "computes its result there",
    "upload": "uploads it",
    "upload_with": 'uploads it with "{call}"',
    "upload_by": 'uploads it by "{call}"',
    "h2d_copy": 'copied to device memory with "{call}"',
    "copy_into": 'copies it into a device tensor with "{call}"',
    "device_write": "writes it into a device tensor",
    "out_write": "writes it into a device tensor with out=",
}


def _code(name: str, front_ends: Iterable[str], summary: str, bad: str, good: str,
          messages: dict[str, str] | None = None, *, severity: str = "error", default_enabled: bool = True,
          enable: str = "", detail: str = "", examples: dict[str, dict[str, str]] | None = None,
          lang: str = "python", silence: str = "") -> Code:
    return Code(name, tuple(front_ends), summary, bad.strip("\n"), good.strip("\n"), messages or {}, severity,
                default_enabled, enable, detail, examples or {}, lang, silence)


# --- device-*: the plugin (typed code) and the check (untyped code) --------------------------------

CONFIG: Final = _code(
    "device-config", [PLUGIN], "Malformed [tool.device_types] configuration",
    '[tool.device_types]\nbackends = { "pkg._backends" = "mps", "pkg._backends.cuda" = "cuda" }   # overlapping keys',
    '[tool.device_types]\nbackends = { "pkg._backends.mps" = "mps", "pkg._backends.cuda" = "cuda" }',
    {PLUGIN: "{message}"},
    detail=('The `device_types` section is malformed: an unknown device, a non-string device, a key that is not a'
            ' dotted module name, two keys where one lies inside the other with another device, an unknown key. '
            'mypy stops before checking anything (exit status 2) with one line that names the key.'),
    examples={'plugin': {'at': 'pyproject.toml',
                 'message': "[tool.device_types] backends.'pkg._backends.mps': unknown backend device 'gpu'; use one of cuda, mps, npu, xpu"}},
    lang='toml',
    silence="Not silenced: with a broken configuration nothing is checked; fix the key the message names.")
CPU_CALL: Final = _code(
    "device-cpu-call", [PLUGIN, CHECK], "Tensor moved to the host (.cpu(), .pin_memory()) in a backend",
    "def softplus(x: Tensor[MPS]) -> Tensor[MPS]:\n"
    "    return torch.nn.functional.softplus(x.cpu()).to(x.device)   # kernel bug worked around on the host",
    "def softplus(x: Tensor[MPS]) -> Tensor[MPS]:\n"
    "    return torch.log1p(torch.exp(x))                            # composite of working on-device ops",
    {PLUGIN: f'"{{method}}()" moves the tensor to the host {WHERE}; {KEEP}',
     CHECK: READ_BACK},
    detail=('`.cpu()` or `.pin_memory()` (the ops `FIXED_TRANSFERS` in `device_types/_semantics.py` sends to the '
            'host) on any tensor, including subclasses such as `nn.Parameter`, bound method aliases (`host = '
            'x.cpu; host()`) and unbound calls (`torch.Tensor.cpu(x)`).'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:12', 'method': '.cpu', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'},
              'check': {'at': 'pkg/_backends/mps/ops.py:12', 'function': 'softplus', 'what': '".cpu()"', 'via': '',
                 'how': 'computes its result there', 'when': '', 'also': '', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'}})
READBACK: Final = _code(
    "device-readback", [PLUGIN, CHECK],
    "Tensor data read back to the host (.numpy(), .tolist(), a readback helper) in a backend",
    "idx = [i for i, v in enumerate(mask.tolist()) if v]\nout = x[torch.tensor(idx, device=x.device)]",
    "out = x[mask.nonzero().squeeze(1)]",
    {PLUGIN: f'"{{method}}()" copies tensor data to the host {WHERE}; {KEEP}',
     CHECK: READ_BACK},
    detail=('`.numpy()`, `.tolist()`, `.__array__()` (`READBACKS`): tensor data copied into host Python or numpy '
            'objects.'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:16', 'method': '.tolist', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'},
              'check': {'at': 'pkg/_backends/mps/ops.py:31', 'function': 'cumsum', 'what': '"to_numpy(a)"', 'via': '',
                 'how': 'computes its result there', 'when': ' when a.dtype is float64', 'also': '', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'}})
CPU_TARGET: Final = _code(
    "device-cpu-target", [PLUGIN, CHECK], "Transfer, copy or factory that targets the CPU in a backend",
    'y = torch.empty(n, device="cpu")\ny.copy_(x)',
    "y = torch.empty(n, device=x.device)\ny.copy_(x)",
    {PLUGIN: f"{{what}} targets the CPU {WHERE}; {KEEP}",
     CHECK: READ_BACK},
    detail=('A transfer, copy or factory that targets the CPU, in any spelling: `.to("cpu")`, '
            '`.to(device="cpu")`, `.to(torch.device("cpu"))`, a `Final`/`Literal["cpu"]` variable, a CPU-typed '
            '`x.device`, `torch.zeros(n, device="cpu")`, `.copy_()` into a CPU tensor.'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:20', 'what': '"empty()"', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'},
              'check': {'at': 'pkg/_backends/mps/ops.py:20', 'function': 'lengths', 'what': '".to("cpu")"', 'via': '',
                 'how': 'computes its result there', 'when': '', 'also': '', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'}})
NUMPY: Final = _code(
    "device-numpy", [PLUGIN, CHECK], "Op result computed or built on the host (numpy, a host RNG) in a backend",
    "r = torch.from_numpy(np.remainder(x.cpu().numpy(), y.cpu().numpy())).to(x.device)",
    "r = x - y * torch.floor(x / y)                      # where-based remainder, Python's sign convention\n"
    "r = torch.where((r != 0) & ((r < 0) != (y < 0)), r + y, r)",
    {PLUGIN: f"{{what}} computes on host (numpy) data {WHERE}; use the torch op on {{device}} tensors instead",
     CHECK: f'"{{function}}" builds its result on the host with {{what}}{{via}} and {{how}}{{when}}{{also}} '
            f"{WHERE}; create it on {{device}} with device ops (fill, arange, a device RNG)"},
    detail=('numpy on tensor data: any numpy function, ufunc or ndarray method called in a backend, '
            '`torch.from_numpy(...)`, and `torch.tensor` / `torch.as_tensor` / `torch.asarray` of an ndarray '
            "(`TENSOR_DATA_FACTORIES`). `device-types check` reports it where an op's result is *built* on the "
            'host and uploaded: `np.zeros`/`np.arange`-style builders (`HOST_ARRAY_BUILDERS`), a host RNG '
            '(`np.random`, `random`), not user data (`np.array(data)` in a creation op) and not metadata '
            '(`np.prod(shape)`, `np.dtype(...)`).'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:24', 'what': '"remainder()"', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'},
              'check': {'at': 'pkg/_backends/mps/ops.py:26', 'function': 'randn',
                 'what': 'host RNG "numpy.random.default_rng()"', 'via': '', 'how': 'uploads it by "from_numpy()"',
                 'when': '', 'also': '', 'device': 'mps', 'prefix': 'pkg._backends.mps'}})
CPU_SIGNATURE: Final = _code(
    "device-cpu-signature", [PLUGIN], "Backend function that takes or returns Tensor[CPU]",
    "def lengths(x: Tensor[MPS]) -> Tensor[CPU]: ...",
    "def lengths(x: Tensor[MPS]) -> Tensor[MPS]: ...",
    {PLUGIN: f'"{{func}}" takes or returns Tensor[CPU] {WHERE}; take and return Tensor[{{marker}}] instead'},
    detail=('A function defined in a backend module that takes or returns `Tensor[CPU]` (reported at the `CPU` in'
            " its signature). Backend code takes and returns tensors on the backend's device; host helpers belong"
            ' outside the backend package.'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:28', 'func': 'lengths', 'marker': 'MPS', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'}})
CPU_OPERAND: Final = _code(
    "device-cpu-operand", [PLUGIN], "Op that consumes a CPU tensor in a backend",
    "def scale(x: torch.Tensor, w: torch.Tensor = torch.ones(3)) -> torch.Tensor:\n"
    "    return x * w + torch.arange(3)",
    "def scale(x: torch.Tensor, w: torch.Tensor | None = None) -> torch.Tensor:\n"
    "    w = torch.ones(3, device=x.device) if w is None else w\n"
    "    return x * w + torch.arange(3, device=x.device)",
    {PLUGIN: f'"{{op}}" consumes a CPU tensor ({{origin}}) {WHERE}; create it on {{device}} (device=x.device)'},
    detail=("Any op that consumes a CPU tensor, whatever the other operands' devices: a tensor created without "
            '`device=` (`torch.tensor([...])`, `torch.arange(n)`), a parameter whose default is such a tensor, '
            'the result of `.cpu()`, or any `Tensor[CPU]` (e.g. returned by a helper typed `-> Tensor[CPU]`).'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:32', 'op': '+', 'origin': 'created by "arange()" without device=',
                 'device': 'mps', 'prefix': 'pkg._backends.mps'}})
MIXED_DEVICES: Final = _code(
    "device-mixed-devices", [PLUGIN], "Op that mixes tensors of two devices in a backend",
    "def f(x: Tensor[MPS], y: Tensor[CUDA]) -> Tensor[MPS]:\n    return torch.add(x, y)",
    "def f(x: Tensor[MPS], y: Tensor[MPS]) -> Tensor[MPS]:\n    return torch.add(x, y)",
    {PLUGIN: f'"{{op}}" mixes tensors on {{devices}} {WHERE}; keep every operand on {{device}}'},
    detail=('One op whose tensor operands are on two different known devices (the overlay reports a type error '
            'too; this code says what the policy makes of it). Parameters torch takes on any device '
            '(`ANY_DEVICE_PARAMETERS`, listed in [op-semantics.md](op-semantics.md): copy sources such as '
            '`copy_(src)`, device donors such as `to(other)`, shape templates such as `view_as(other)`, split '
            'points and lengths torch reads on the host) are exempt; index tensors torch uploads itself '
            "(`UPLOADED_PARAMETERS`: `index_put`'s `indices`) are not."),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:37', 'op': 'add()', 'devices': 'mps and cuda', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'}})
WRONG_DEVICE: Final = _code(
    "device-wrong-device", [PLUGIN], "Tensor on another device than the backend's",
    'def f(x: Tensor[MPS]) -> Tensor[MPS]:\n    return x.to("cuda")',
    "def f(x: Tensor[MPS]) -> Tensor[MPS]:\n    return x.to(torch.float16)",
    {PLUGIN: f"{{what}} is on {{other}}, not {{device}}, {WHERE}; keep it on {{device}}"},
    detail=("A tensor on another device than the backend's: a transfer or factory to another device "
            '(`.to("cuda")` or `.cuda()` inside the MPS backend), an op on a tensor whose device is known and '
            "differs from the backend's, or a backend function whose signature names another device. A return of "
            'such a tensor into `-> Tensor[MPS]` is also a `return-value` error from the overlay.'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:41', 'what': '"to()"', 'other': 'cuda', 'device': 'mps',
                 'prefix': 'pkg._backends.mps'}})
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
    enable="mypy --enable-error-code device-host-sync; device-types check --enable device-host-sync",
    detail=('Opt-in (`--enable-error-code device-host-sync`, or `enable_error_code` in the backend overrides): '
            '`.item()` and the other ops in `HOST_SYNCS`, `int(t)`, `float(t)`, `bool(t)` and a tensor used as a '
            'condition (`if t:`), ops whose result size depends on the data (`nonzero`, `masked_select`, `unique`) '
            'and indexing with a boolean mask (`x[x > 0]`): each waits for the device. `bool(t)` is what `if t:` calls, so '
            'its advice is the condition\'s (select with `torch.where`); `int(t)` and `float(t)` keep a 0-d tensor. '
            'Allowed by the policy, but a '
            'performance trap in kernels. `device-types check --enable device-host-sync` reports a readback whose '
            "data only decides control flow or validates (a bounds check, a loop count), where the op's result is "
            'still computed on the device. The plugin reads these ops from the tables of `device_types/_semantics.py` '
            '(`HOST_SYNCS`, `SCALAR_CONVERSIONS`, `DATA_DEPENDENT_SHAPES`, `MASK_INDEXING`, `MASK_OPS`); a mask the '
            "code does not show (a parameter, a helper's result) is not recognised. Conditions are seen by the "
            "plugin's per-module pass only: mypy calls no hook for them, so under dmypy they are not reported."),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:45', 'what': '".item()"',
                         'reason': 'and copies a scalar to the host',
                         'advice': 'keep the value as a 0-d tensor on the device',
                         'device': 'mps', 'prefix': 'pkg._backends.mps'},
              'check': {'at': 'pkg/_backends/mps/ops.py:45', 'function': 'nonzero', 'what': '"count.item()"',
                 'device': 'mps', 'prefix': 'pkg._backends.mps'}})
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
    default_enabled=False, enable="mypy --enable-error-code device-unknown-operand",
    detail=('Opt-in: inside a backend module, an operand whose device the types do not know (`Tensor[Any]`, or '
            "`Any` from a helper without an annotation) mixed with a tensor typed on the backend's device. Only "
            'values a helper made are reported (a call outside torch, or a local assigned only such calls): '
            'gradual parameters typed bare `torch.Tensor` and explicit `Any` stay silent. Inside a backend this is '
            "what the policy cannot vouch for: `torch.arange(n)` made by a helper without `device=` is on the CPU at "
            "run time. [plugin.md](plugin.md)'s strict block turns it on."),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:12', 'op': '+', 'what': '"positions(n)"',
                         'type': 'Tensor[Any]', 'marker': 'MPS', 'device': 'mps', 'prefix': 'pkg._backends.mps'}})
UNKNOWN_DEVICE: Final = _code(
    "device-unknown-device", [PLUGIN], "Device string that names no device",
    'torch.zeros(3, device="gpu")', 'torch.zeros(3, device="cuda:0")',
    {PLUGIN: 'unknown device "{text}"; valid device types are {valid} (optionally with an index, e.g. "cuda:1")'},
    detail=('In every module: a device string that names no device where torch types the argument as a device '
            'spec: `torch.device(...)`, `.to(...)`, `x.new_*(device=...)`, and a `device=` parameter typed with '
            "one of torch's device-spec aliases (`DeviceLikeType`, `torch.types._device` / `Device`, "
            "`torch.cuda`'s `_device_t`). A parameter that is merely *named* `device` but typed `str` (or `str | "
            'torch.device`), such as torch\'s own `register_interface_for_device("tpu", ...)`, takes registry '
            'keys, not devices: its strings are not checked. Valid types are `cpu`, `cuda`, `mps`, `npu`, `xpu`, '
            'optionally with an index (`"cuda:1"`); every other device type torch parses '
            '(`device_types._devices.TORCH_DEVICE_TYPES`, the names of `c10::DeviceType`: `meta`, `xla`, `hpu`, '
            '`mtia`, `privateuseone`, `lazy`, `vulkan`, `metal`, `ipu`, `ve`, `fpga`, `maia`, `hip`, `mkldnn`, '
            '`opengl`, `opencl`, `ideep`, and the older `msnpu`, `ort`) is accepted and typed `Tensor[Any]`.'),
    examples={'plugin': {'at': 'pkg/_backends/mps/ops.py:50', 'text': 'gpu', 'valid': 'cpu, cuda, mps, npu, xpu'}})
CPU_BACKEND: Final = _code(
    "device-cpu-backend", [CHECK], "CPU-backend op called from a device backend",
    "from ..cpu import ops as cpu_ops\n\ndef argsort(a):\n"
    "    return cpu_ops.argsort(a)          # the CPU kernel runs on device data",
    "def argsort(a):\n    return sort(a)[1]                 # an on-device composite, or the native kernel",
    {CHECK: f'"{{function}}" calls the CPU backend\'s "{{callee}}()" on device data{{when}} {WHERE}; {CHECK_KEEP}'},
    detail=('`device-types check`: a device-backend function calls a function of a CPU backend (the `cpu` sibling'
            ' of each configured backend package, e.g. `pkg._backends.cpu`, or the prefixes in '
            '`[tool.device_types.check] cpu_backends`) on its data.'),
    examples={'check': {'at': 'pkg/_backends/mps/ops.py:54', 'function': 'argsort', 'callee': 'argsort', 'when': '',
                 'device': 'mps', 'prefix': 'pkg._backends.mps'}})
INDIRECT: Final = _code(
    "device-indirect-fallback", [CHECK], "Call of another backend function that falls back to the host",
    "def sort(a):\n    return from_numpy(np.sort(to_numpy(a)))\n\ndef topk(a, k):\n    return sort(a)[:k]",
    "def sort(a):\n    return kernels.sort(a)            # fix the callee: every caller is clean\n\n"
    "def topk(a, k):\n    return sort(a)[:k]",
    {CHECK: f'"{{function}}" calls "{{callee}}()", which falls back to the host{{when}} ({{chain}}: {{what}} at '
            f'{{root}}) {WHERE}; fix "{{fix}}" on the device or compose on-device ops here'},
    detail=('`device-types check`: a backend function calls another backend function that falls back on its '
            'normal path (`topk` -> `sort`, where `sort` computes on the host). Reported at the call, with the '
            'chain down to the root; the root itself is reported in the function that holds it. A branch taken '
            "only for some dtypes or chips still counts. The message names the function to fix: the chain's root,"
            ' where the data reaches the host (fixing it there makes every caller clean), or compose on-device '
            'ops in the caller.'),
    examples={'check': {'at': 'pkg/_backends/mps/ops.py:58', 'function': 'topk', 'callee': 'sort', 'when': '',
                 'chain': 'topk -> sort', 'what': '".to("cpu")"', 'root': 'pkg/_backends/mps/ops.py:31',
                 'fix': 'sort', 'device': 'mps', 'prefix': 'pkg._backends.mps'}})
UNANALYSED: Final = _code(
    "device-unanalysed", [CHECK], "A file or function device-types check could not analyse",
    "pkg/_backends/mps/broken.py with a syntax error (or NUL bytes, or over 4 MiB)",
    "source that parses; or leave the file out of the paths given to the check",
    {CHECK: "syntax error, file not analysed: {error}"},
    detail=('`device-types check`: a file it was asked to check could not be analysed: a syntax error, not a text'
            ' file, unreadable, larger than 4 MiB, not a regular file (a FIFO or a device named `*.py`: never'
            ' waited on or read without end), or a symlink that leaves the directory it was found under (name'
            ' the file itself to check it); or one function of it could not be (nested too deeply for the walk,'
            ' such as a 1,000-branch `elif` chain: the line names the function). The run exits 2 so that CI'
            ' notices the hole in the check; exclude the file from the paths if that is intended.'),
    examples={'check': {'at': 'pkg/_backends/mps/broken.py:1', 'error': 'invalid syntax'}},
    lang='text',
    silence="Not silenced: the run exits 2 while a file it was given cannot be analysed, so that CI notices "
            "the hole; leave the file out of the paths given to the check if that is intended.")

# --- audit-*: markers in backend code against the known-issues table ------------------------------

_A = [AUDIT]
#: The policy's marker form, quoted by the audit's messages and examples.
MARKER_FORM: Final = "# TODO: re-enable native kernel when <platform> fixes <issue>"

DOCS_MISSING: Final = _code(
    "audit-docs-missing", _A, "The known-issues document does not exist",
    "no docs/known-kernel-issues.md", "copy the template (an empty table passes)",
    {AUDIT: "{docs} does not exist; create it with a markdown table whose columns are {columns}"},
    detail=('The known-issues document does not exist.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md', 'docs': 'docs/known-kernel-issues.md',
                 'columns': 'Op name, Backend, Error description, Composite workaround, Platform version, Status'}},
    lang='text')
TABLE_MISSING: Final = _code(
    "audit-table-missing", _A, "The document has no table with the rule-4 fields",
    "None yet.   (or a | Field | Meaning | table)",
    "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
    "|---|---|---|---|---|---|",
    {AUDIT: "{docs} has no known-issues table; add one with the columns {columns}"},
    detail=('The document has no table with the rule-4 fields.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md', 'docs': 'docs/known-kernel-issues.md',
                 'columns': 'Op name, Backend, Error description, Composite workaround, Platform version, Status'}},
    lang='text')
TABLE_MISSING_COLUMN: Final = _code(
    "audit-table-missing-column", _A,
    "An issue table lacks the op, error, workaround or platform field (strict: Backend or Status)",
    "| Op | Backend | Error | Platform | Status |", "| Op | Backend | Error | Composite workaround | Platform | Status |",
    {AUDIT: "table has no {column} column; add it"},
    detail=('An issue table lacks one of the op, error, workaround or platform fields (then every missing field '
            'is listed, Status included), or, in strict mode, Backend or Status.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:5', 'column': "'Composite workaround'"}},
    lang='text')
TABLE_NO_BACKEND: Final = _code(
    "audit-table-no-backend", _A, "Tables without a Backend column whose backend nothing names",
    "## 310B\n| Op | ACLNN kernel | Error | Workaround | Verified on |     (no platforms configured)",
    '[tool.device_types]\nplatforms = { "310B" = "npu" }',
    {AUDIT: "{n} tables ({headings}) have no 'Backend' column and neither a heading nor the document's path "
            "names a backend; map the headings in [tool.device_types] platforms"},
    detail=("Tables carry the policy's information but have no Backend column, and neither a heading, the "
            "document's path nor `default_backend` names their backend. One finding for all such tables, at the "
            'first. The message writes the `platforms` line for you, with the device the kernel column suggests '
            '(`aclnn...` -> npu, `MPSGraph...`/Metal -> mps, cuDNN/cuBLAS -> cuda); the backend itself is never '
            'guessed from it.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:5', 'n': '2', 'headings': "'310B', '910B'"}},
    lang='text')
TABLE_HEADER_NAME: Final = _code(
    "audit-table-header-name", _A, "Recognised columns not named as the policy names them (strict)",
    "| Op | Error | Workaround | Verified on | ... |",
    "| Op name | Error description | Composite workaround | Platform version | ... |",
    {AUDIT: "columns {found} are {policy} in the policy's schema; rename them (device-types audit --fix does)"},
    default_enabled=False, enable="device-types audit --strict, or strict = true in [tool.device_types]",
    detail=('*Strict mode only* (`--strict` or `strict = true`): recognised columns are not named as the policy '
            'names them; one finding per table.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:5', 'found': "'Op', 'Error'",
                 'policy': "'Op name', 'Error description'"}},
    lang='text')
TABLE_UNKNOWN_COLUMN: Final = _code(
    "audit-table-unknown-column", _A, "A column is not recognised while a field is missing",
    "| Op | Backend | Error | Fix | Platform | Status |",
    "| Op | Backend | Error | Composite workaround | Platform | Status |",
    {AUDIT: "column '{header}' not recognised; rename it to {title}"},
    detail=('A column is not recognised while a field is missing.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:5', 'header': 'Fix', 'title': "'Composite workaround'"}},
    lang='text')
TABLE_DUPLICATE_COLUMN: Final = _code(
    "audit-table-duplicate-column", _A, "Two columns read as the same field",
    "| Op | Device | Backend | ... |", "| Op | Backend | ... |",
    {AUDIT: "columns {columns} both read as {field}; keep one"},
    detail=('Two columns read as the same field.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:5', 'columns': "'Device', 'Backend'", 'field': 'Backend'}},
    lang='text')
TABLE_RAGGED_ROW: Final = _code(
    "audit-table-ragged-row", _A, "A row has more or fewer cells than the header",
    "| aten.baddbmm | mps | crash | bmm + add | macOS 15.3 |          (5 of 6 cells)",
    "| aten.baddbmm | mps | crash | bmm + add | macOS 15.3 | open (workaround active) |   (a pipe in a cell: \\|)",
    {AUDIT: "row has {n} cells, the header {m}"},
    detail=('A row has more or fewer cells than the header.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:7', 'n': '5', 'm': '6'}},
    lang='text')
TABLE_EMPTY_CELL: Final = _code(
    "audit-table-empty-cell", _A, "A required cell is empty or just a dash",
    "| aten.baddbmm | mps | | bmm + add | - | open (workaround active) |",
    "| aten.baddbmm | mps | crash on batched inputs | bmm + add | macOS 15.3 | open (workaround active) |",
    {AUDIT: "row for {op} has an empty '{column}' cell; fill in {what}"},
    detail=('A required cell is empty or just a dash.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:7', 'op': 'aten.baddbmm', 'column': 'Error description',
                 'what': 'what goes wrong'}},
    lang='text')
TABLE_BAD_OP: Final = _code(
    "audit-table-bad-op", _A, "The Op cell names no op",
    "| baddbmm crash | ...      or      | 6-op composite | ...",
    "| aten.baddbmm | ...      or      | `baddbmm` (float16) | ...      or      | `lt` / `gt` | ...",
    {AUDIT: "Op cell {cell!r} names no op; write the op"},
    detail=('The Op cell names no op (see [op cells](audit.md#op-cells)).'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:7', 'cell': 'baddbmm crash'}},
    lang='text')
TABLE_BAD_BACKEND: Final = _code(
    "audit-table-bad-backend", _A, "Backend is not a known device",
    "| ... | Metal | ...      or      | ... | mps, cuda | ...", "| ... | mps | ...   (one row per backend)",
    {AUDIT: "Backend {cell!r} is not one of {devices}"},
    detail=('Backend is not a known device.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:7', 'cell': 'tpu', 'devices': 'cuda, mps, npu, xpu'}},
    lang='text')
TABLE_BAD_STATUS: Final = _code(
    "audit-table-bad-status", _A, "Status is neither open nor resolved",
    "| ... | fixed |      or      | ... | WIP |",
    "| ... | open (workaround active) |      or      | ... | resolved (native kernel re-enabled) |",
    {AUDIT: "Status {cell!r} is neither open nor resolved; write 'open (workaround active)' or "
            "'resolved (native kernel re-enabled)'"},
    detail=('Status is neither open nor resolved.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:7', 'cell': 'fixed'}},
    lang='text')
TABLE_STATUS_WORDING: Final = _code(
    "audit-table-status-wording", _A, "Status reads as open or resolved, but not in the policy's words (strict)",
    "| ... | Open |      or      | ... | resolved |", "| ... | open (workaround active) |",
    {AUDIT: "Status {cell!r} is not in the policy's words; write {status}"},
    default_enabled=False, enable="device-types audit --strict, or strict = true in [tool.device_types]",
    detail=('*Strict mode only* (`--strict` or `strict = true`): Status reads as open or resolved, but not in the'
            " policy's words."),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:7', 'cell': 'Open', 'status': "'open (workaround active)'"}},
    lang='text')
TABLE_DUPLICATE_ROW: Final = _code(
    "audit-table-duplicate-row", _A, "The same op and backend appear twice (also across tables)",
    "aten.baddbmm | mps   in the M3 and in the M4 section (M3 and M4 not in platforms)",
    'one row with both platform versions, or platforms = { "M3" = "mps", "M4" = "mps" } when each chip has its own',
    {AUDIT: "{op} on {backend} is also listed at line {line}; keep one row"},
    detail=('The same op and backend appear twice (also across tables), under the same configured platform or '
            'none.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:12', 'op': 'aten.baddbmm', 'backend': 'mps', 'line': '7'}},
    lang='text')
MARKER_MALFORMED: Final = _code(
    "audit-marker-malformed", _A, "A marker lacks a platform or an issue, or is not in the rule-3 form",
    "# TODO: re-enable native kernel when fixes aten.baddbmm crash       # no platform\n"
    "# TODO: re-enable native kernel when macOS 15.4 fixes               # no issue\n"
    "# FIXME re-enable native kernel once Apple ships a fix              # not the form",
    "# TODO: re-enable native kernel when macOS 15.4 fixes aten.baddbmm crash",
    {AUDIT: "marker names no {part}; say {what}"},
    detail=('The marker lacks a platform or an issue, or does not have the rule-3 shape at all (a TODO that '
            're-enables something native when a platform fixes an issue). Such a marker is never rewritten by '
            '`--fix`.'),
    examples={'audit': {'at': 'pkg/_backends/mps/ops.py:14', 'part': 'platform',
                 'what': "which platform release fixes it ('when macOS 15.4 fixes ...')"}},
    lang='python')
MARKER_WORDING: Final = _code(
    "audit-marker-wording", _A, "A readable marker not in the template's words (strict)",
    "# TODO: re-enable native aclnnAvgPool2d when CANN fixes 161002 on 910B",
    "# TODO: re-enable native kernel when CANN fixes aclnnAvgPool2d 161002 on 910B   (what --fix writes)",
    {AUDIT: f"marker does not use the policy's wording '{MARKER_FORM}'; device-types audit --fix rewrites it, "
            "keeping the platform and the issue"},
    default_enabled=False, enable="device-types audit --strict, or strict = true in [tool.device_types]",
    detail=("*Strict mode only* (`--strict` or `strict = true`): a readable marker not in the template's words."),
    examples={'audit': {'at': 'pkg/_backends/npu/ops.py:14'}},
    lang='python')
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
            "'USE_NATIVE_... = False' flag"},
    detail=('No guard at the marker, so the native kernel may be gone. A marker at the top of the composite '
            'function, above code that is the workaround rather than the switched-off native call, is this '
            'finding: the policy\'s "preserved native kernel" is what it looks for.'),
    examples={'audit': {'at': 'pkg/_backends/mps/ops.py:14'}},
    lang='python')
MARKER_NO_OP: Final = _code(
    "audit-marker-no-op", _A, "Nothing tells which op the marker is for",
    "# TODO: re-enable native kernel when macOS 15.4 fixes the Metal crash     (above a module-level flag)",
    "# TODO: re-enable native kernel when macOS 15.4 fixes the aten.baddbmm Metal crash",
    {AUDIT: "marker names no op and is in no function; name the op in the marker ('fixes aten.<op> ...')"},
    detail=('Nothing tells which op the marker is for (no `aten.` op, kernel name or matching backticked name in '
            "it, no function, no row's op in the text, no error code of exactly one op)."),
    examples={'audit': {'at': 'pkg/_backends/mps/ops.py:3'}},
    lang='python')
MISSING_ROW: Final = _code(
    "audit-missing-row", _A, "A marker has no row for its op (or the kernel it names) and backend",
    "a marker for aten.softmax in _backends/npu/ and no softmax | npu row",
    "| aten.softmax | npu | ... | open (workaround active) |",
    {AUDIT: "no {backend} row in {docs} matches this marker in {function}(); add a row for the op with Backend "
            "'{backend}' and Status 'open (workaround active)'"},
    detail=('A marker has no row for its op (or the kernel it names) and backend.'),
    examples={'audit': {'at': 'pkg/_backends/npu/ops.py:14', 'backend': 'npu', 'docs': 'docs/known-kernel-issues.md',
                 'function': 'softmax'}},
    lang='text')
STALE_MARKER: Final = _code(
    "audit-stale-marker", _A, "The row is resolved but the marker is still in the code",
    "| aten.addmm | mps | ... | resolved (native kernel re-enabled) |   and a marker for it",
    "delete the marker and the guard (call the native kernel), or set the row back to open",
    {AUDIT: "{docs}:{line} says {op} on {backend} is resolved, but this marker is still here; remove the marker "
            "and its guard, or set the row back to 'open (workaround active)'"},
    detail=("The row is `resolved` (every row, when the marker's kernel is listed under several chips) but the "
            'marker is still in the code.'),
    examples={'audit': {'at': 'pkg/_backends/mps/ops.py:14', 'docs': 'docs/known-kernel-issues.md', 'line': '7',
                 'op': 'aten.addmm', 'backend': 'mps'}},
    lang='text')
UNREADABLE_SOURCE: Final = _code(
    "audit-unreadable-source", _A, "A backend file could not be read, decoded or parsed; its markers were not checked",
    "a Latin-1 byte or a syntax error in ops.py", "UTF-8 source that imports",
    {AUDIT: "{reason}; markers in this file were not checked"},
    detail=('A backend file could not be read, decoded or parsed, so its markers were not checked (the line is '
            'where decoding or parsing failed).'),
    examples={'audit': {'at': 'pkg/_backends/mps/ops.py:3', 'reason': 'not valid utf-8 (byte 0xe9 on line 3)'}},
    lang='text')
ORPHAN_ROW: Final = _code(
    "audit-orphan-row", _A, "An open row has no marker in its backend",
    "| aten.index_put | npu | ... | open (workaround active) |   and no marker in _backends/npu/",
    "# TODO: re-enable native kernel when CANN 8.1 fixes aten.index_put hang   (at the guarded native kernel)\n"
    "or Status 'resolved (native kernel re-enabled)' once the native kernel is back",
    {AUDIT: f"{{op}} on {{backend}} is open, but no marker in the {{backend}} backend matches it; keep the native "
            f"kernel behind a guard marked '{MARKER_FORM}', or set Status to 'resolved (native kernel re-enabled)'"},
    detail=('An `open` row has no marker in its backend (or there is no code for its backend).'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:9', 'op': 'aten.index_put', 'backend': 'npu'}},
    lang='text')
MISSING_WORKAROUND: Final = _code(
    "audit-missing-workaround", _A, "The composite function named in an open row is not defined in that backend",
    "Composite workaround `baddbmm_composite`: bmm + mul + add   and no def baddbmm_composite in _backends/mps/",
    "def baddbmm_composite(...) in _backends/mps/, or the name fixed in the row",
    {AUDIT: "'Composite workaround' names `{name}`, but no function {name} is defined in the {backend} backend "
            "({path}); fix the name or add the composite"},
    detail=('The composite function named in an open row is not defined in that backend.'),
    examples={'audit': {'at': 'docs/known-kernel-issues.md:7', 'name': 'baddbmm_composite', 'backend': 'mps',
                 'path': 'pkg/_backends/mps'}},
    lang='text')


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


def example_message(code: Code, front_end: str) -> str:
    """The registry's example for ``front_end``, as that front end prints it."""
    fields = dict(code.examples[front_end])
    at = fields.pop("at")
    message = f"{code.messages[front_end].format(**fields)}; {explain_tail(code)}"
    if front_end == PLUGIN:  # mypy's form
        return f"{at}: error: {message}  [{code.name}]"
    return f"{at}: {message} [{code.name}]"


def silence(code: Code) -> str:
    """How a finding of ``code`` is silenced (or, for the audit, why it is not)."""
    if code.silence:
        return code.silence
    ways = []
    if PLUGIN in code.front_ends:
        ways.append(f"mypy: `# type: ignore[{code.name}]` on the line, `disable_error_code = [\"{code.name}\"]` in a "
                    f"`[[tool.mypy.overrides]]` block, or `--disable-error-code {code.name}`.")
    if CHECK in code.front_ends:
        ways.append(f"device-types check: `# device-types: ignore[{code.name}]` (or `# type: ignore[{code.name}]`) on "
                    f"the line, `--disable {code.name}`, or `disable = [\"{code.name}\"]` in "
                    "`[tool.device_types.check]`; a baseline (`--write-baseline`) records what is there.")
    if AUDIT in code.front_ends:
        ways.append("device-types audit has no per-line silence: fix the table or the marker"
                    + (" (a strict-only code: leave out `--strict` and `strict = true`)." if not code.default_enabled
                       else "."))
    return " ".join(ways)


def _wrap(text: str, indent: str = "", width: int = 100) -> list[str]:
    """``text`` filled to ``width``, never breaking inside a `code span`."""
    import re
    import textwrap

    glued = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", "\0"), text)
    return [line.replace("\0", " ") for line in textwrap.wrap(
        glued, width, initial_indent=indent, subsequent_indent=indent, break_long_words=False,
        break_on_hyphens=False)]


def _detail(code: Code) -> str:
    """The detail where it says more than the summary."""
    return "" if code.detail.rstrip(".") == code.summary.rstrip(".") else code.detail


def explain(code: Code, docs_url: str | None = None) -> str:
    """``device-types explain CODE``: the content of the code's section of docs/errors.md
    (:func:`markdown_section`, from the same fields) as plain text, and the link to it."""
    from ._links import code_url

    on = "yes" if code.default_enabled else f"no (turn it on: {code.enable})"
    lines = [f"{code.name}: {code.summary}", "",
             f"reported by: {', '.join(code.front_ends)}", f"on by default: {on}", f"severity: {code.severity}"]
    if _detail(code):
        lines += ["", *_wrap(_detail(code))]
    for front_end in code.examples:
        lines += ["", f"example ({front_end}):", f"  {example_message(code, front_end)}"]
    lines += ["", "bad:", *_indented(code.bad), "", "good:", *_indented(code.good)]
    lines += ["", "silence:", *_wrap(silence(code), "  ")]
    lines += ["", f"docs: {code_url(code.name, docs_url)}"]
    return "\n".join(lines)


def _indented(text: str) -> list[str]:
    return [f"  {line}" if line else "" for line in text.splitlines()]


def markdown_section(code: Code) -> str:
    """The code's section of docs/errors.md (a test keeps the page equal to these)."""
    on = "yes" if code.default_enabled else f"no (turn it on: {code.enable})"
    lines = [f"## {code.name}", "",
             *_wrap(f"**{code.summary}.** Reported by {', '.join(code.front_ends)}; on by default: {on}; "
                    f"severity: {code.severity}."), ""]
    if _detail(code):
        lines += [*_wrap(_detail(code)), ""]
    for front_end in code.examples:
        lines += [f"Example ({front_end}):", "```", example_message(code, front_end), "```", ""]
    lines += ["Bad:", f"```{code.lang}", code.bad, "```", "", "Good:", f"```{code.lang}", code.good, "```", ""]
    lines += _wrap("Silence: " + silence(code))
    return "\n".join(lines)


def markdown_sections() -> str:
    """Every code's section, in registry order: the generated part of docs/errors.md."""
    return "\n\n".join(markdown_section(c) for c in ALL)


def markdown_index() -> str:
    """The index table of ``docs/errors.md`` (a test keeps the page equal to it)."""
    rows = ["| code | reported by | on by default | summary |", "|---|---|---|---|"]
    for c in ALL:
        on = "yes" if c.default_enabled else "**no**"
        rows.append(f"| [`{c.name}`](#{c.name}) | {', '.join(c.front_ends)} | {on} | {c.summary} |")
    return "\n".join(rows)
