"""Branches for another accelerator never run in this backend; a tensor already on the CPU is
read from no device. The branch for this backend's own device is reached."""
from . import kernels


def relu(a):
    return kernels.launch("relu", a)


def cuda_branch_of_a_copy(inp):
    x = inp.float()
    if x.device.type == "cuda":
        return relu(x.cpu()).to(x.device)
    return relu(x)


def npu_in_device_text(x):
    if "npu" in str(x.device):
        return relu(x.cpu()).to(x.device)
    return relu(x)


def reraised_unless_cuda(x):
    try:
        return kernels.launch("antialias", x)
    except NotImplementedError:
        if x.device.type != "cuda":
            raise
        return relu(x.cpu()).to(x.device)


def cpu_or_other_accelerator(pos, half):
    if (pos.device.type == "cpu" and half) or pos.device.type == "cuda":
        pos = pos.to("cpu")
    return relu(pos)


def own_device_branch(inp):
    x = inp.float()
    if x.device.type == "mps":
        return relu(x.cpu()).to(x.device)  # E: device-cpu-call
    return relu(x)
