"""Pattern 8: host numbers that only size or fill device tensors, and tensors made on the
host: a read-back count sizes a device factory (its result is device data, not a host view);
a read-back Python float is a value (``m *= -1.0`` rebinds it); a tensor made with
``device="cpu"`` holds host-built data, so uploading it is that, not a readback."""
import torch


def one_hot(label, num_classes):
    n = int(label.max().item()) + 1
    out = torch.zeros(label.shape[0], n, dtype=label.dtype, device=label.device)
    out[0] = 1
    return out


def negated_peak(x):
    m = float(x.max().item())
    m *= -1.0
    return x * m


def ramp(x, n):
    steps = torch.linspace(0.0, 1.0, n, device="cpu").tolist()  # E: device-numpy
    return x * torch.tensor(steps, device=x.device)
