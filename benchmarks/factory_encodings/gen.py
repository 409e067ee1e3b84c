"""Generate the fake torch packages (4 encodings) and the call-form benchmark files."""
import json, os, pathlib

ROOT = pathlib.Path(__file__).parent
NAMES = ["ones", "zeros", "empty", "rand", "randn", "full_", "eye_", "arange_", "linspace_", "logspace_",
         "tril_indices_", "triu_indices_", "randint_", "randperm_", "bartlett_window", "blackman_window",
         "hamming_window", "hann_window", "kaiser_window", "empty_strided_", "empty_permuted_", "scalar_tensor_",
         "sparse_coo_", "sparse_csr_", "zeros_q", "ones_q", "empty_q", "rand_q", "randn_q", "normal_q"]
assert len(NAMES) == 30 and len(set(NAMES)) == 30
REST = "out: Tensor | None = None, dtype: dtype | None = None, layout: layout | None = None, {dev}, pin_memory: bool | None = False, requires_grad: bool | None = False"
SHAPES = ["size: Sequence[int], *, ", "*size: int, "]
DEVS = ["CUDA", "MPS", "NPU", "XPU"]

COMMON = '''from typing import Any, Generic, Literal, Sequence, overload
from typing_extensions import Never, TypeAlias, TypeVar

class dtype: ...
class layout: ...
'''
TENSOR = '''
class device(Generic[D_co]):
    type: str
    index: int
    def __init__(self, type: str, index: int = 0) -> None: ...

DeviceLikeType: TypeAlias = str | device | int

class Tensor(Generic[D]):
    @property
    def device(self) -> device[D]: ...
    def __mul__(self, other: Tensor[D]) -> Tensor[D]: ...
'''
CLASSIC_HEAD = COMMON + '''
class Device: ...
class CPU(Device): ...
class CUDA(Device): ...
class MPS(Device): ...
class NPU(Device): ...
class XPU(Device): ...
CPUName: TypeAlias = Literal['cpu', 'cpu:0']
''' + "".join(f"{d}Name: TypeAlias = Literal[{', '.join(repr(d.lower() + s) for s in ['', *[f':{i}' for i in range(8)]])}]\n" for d in DEVS) + '''
D = TypeVar("D", bound=Device, default=Any)
D2 = TypeVar("D2", bound=Device, default=Any)
D_co = TypeVar("D_co", bound=Device, covariant=True, default=Any)
''' + TENSOR
LITERAL_HEAD = COMMON + '''
CPU: TypeAlias = Literal["cpu"]
CUDA: TypeAlias = Literal["cuda"]
MPS: TypeAlias = Literal["mps"]
NPU: TypeAlias = Literal["npu"]
XPU: TypeAlias = Literal["xpu"]
DeviceName: TypeAlias = Literal["cpu", "cuda", "mps", "npu", "xpu"]
D = TypeVar("D", bound=DeviceName, default=Any)
D2 = TypeVar("D2", bound=DeviceName, default=Any)
D_co = TypeVar("D_co", bound=DeviceName, covariant=True, default=Any)
''' + TENSOR


def ov(fn, shape, dev, ret):
    return f"@overload\ndef {fn}({shape}{REST.format(dev=dev)}) -> {ret}: ...\n"


def factory(fn, enc):
    out = []
    if enc == "stock":
        return "".join(ov(fn, s, "device: DeviceLikeType | None = None", "Tensor") for s in SHAPES)
    if enc in ("classic", "literal_guard"):
        out += [ov(fn, s, "device: Never", "Tensor") for s in SHAPES]
    if enc == "classic_reordered":
        out += [ov(fn, s, "device: Never", "Tensor") for s in SHAPES]
        out += [ov(fn, s, "device: device[D2]", "Tensor[D2]") for s in SHAPES]
        out += [ov(fn, s, "device: CPUName | None = None", "Tensor[CPU]") for s in SHAPES]
        out += [ov(fn, s, f"device: {d}Name", f"Tensor[{d}]") for s in SHAPES for d in DEVS]
    elif enc == "classic":
        out += [ov(fn, s, "device: CPUName | None = None", "Tensor[CPU]") for s in SHAPES]
        out += [ov(fn, s, "device: device[D2]", "Tensor[D2]") for s in SHAPES]
        out += [ov(fn, s, f"device: {d}Name", f"Tensor[{d}]") for s in SHAPES for d in DEVS]
    elif enc == "generic_only":
        out += [ov(fn, s, "device: device[D2]", "Tensor[D2]") for s in SHAPES]
    elif enc == "literal_split":
        out += [ov(fn, s, "device: Never", "Tensor") for s in SHAPES]
        out += [ov(fn, s, "device: None = None", "Tensor[CPU]") for s in SHAPES]
        out += [ov(fn, s, "device: device[D2]", "Tensor[D2]") for s in SHAPES]
        out += [ov(fn, s, "device: D2", "Tensor[D2]") for s in SHAPES]
    else:
        out += [ov(fn, s, "device: None = None", "Tensor[CPU]") for s in SHAPES]
        out += [ov(fn, s, "device: D2 | device[D2]", "Tensor[D2]") for s in SHAPES]
    # torch's own, device a required keyword (REQUIRED_DEVICE_KEYWORD)
    out += [ov(fn, s, "device: DeviceLikeType | None", "Tensor") for s in SHAPES]
    return "".join(out)


ENCODINGS = ["stock", "classic", "literal", "literal_guard", "literal_split", "generic_only", "classic_reordered"]
for enc in ENCODINGS:
    head = LITERAL_HEAD if enc.startswith("literal") else CLASSIC_HEAD
    if enc == "stock":
        head = CLASSIC_HEAD  # Tensor generic too, factories untyped
    p = ROOT / enc / "faketorch" / "__init__.pyi"
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(head + "\n" + "\n".join(factory(fn, enc) for fn in NAMES))

N = 1500
FORMS = {
    "empty": ("def f{i}(x: Tensor, n: int) -> object:\n    return n\n"),
    "bare": ("def f{i}(x: Tensor, n: int) -> object:\n    return faketorch.{fn}(n, 1, device=x.device)\n"),
    "typed": ("def f{i}(x: Tensor[CUDA], n: int) -> object:\n    return faketorch.{fn}(n, 1, device=x.device)\n"),
    "none": ("def f{i}(x: Tensor, n: int) -> object:\n    return faketorch.{fn}(n, 1)\n"),
    "name": ("def f{i}(x: Tensor, n: int) -> object:\n    return faketorch.{fn}(n, 1, device=\"cuda\")\n"),
    "name_xpu": ("def f{i}(x: Tensor, n: int) -> object:\n    return faketorch.{fn}(n, 1, device=\"xpu\")\n"),
    "unannotated": ("def f{i}(x, n: int):\n    return faketorch.{fn}(n, 1, device=x.device)\n"),
}
for enc in ENCODINGS:
    for form, tpl in FORMS.items():
        d = ROOT / "bench" / f"{enc}-{form}"
        d.mkdir(parents=True, exist_ok=True)
        body = "import faketorch\nfrom faketorch import Tensor, CUDA\n\n" + "\n".join(
            tpl.format(i=i, fn=NAMES[i % 30]) for i in range(N))
        (d / "t.py").write_text(body)
        (d / "pyrightconfig.json").write_text(json.dumps({
            "include": ["t.py"], "pythonVersion": "3.11",
            "executionEnvironments": [{"root": ".", "extraPaths": [str(ROOT / enc)]}]}, indent=1))
print("ok")
