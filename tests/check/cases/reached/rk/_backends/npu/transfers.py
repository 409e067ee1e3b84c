"""Pattern 11: what ``.to(...)`` names. A dtype (``torch.float32``, ``x.dtype``) keeps the data
where it is, so host data converted that way is not uploaded; a local bound once to the CPU
(``host = torch.device("cpu")``) is the CPU, as written out."""
import numpy as np
import torch


def as_float(x):
    return x.to(torch.float32)


def staged_as_float(n):
    buf = np.zeros(n)
    return as_float(torch.as_tensor(buf))


def staged_like(x, n):
    return torch.as_tensor(np.ones(n)).to(x.dtype)


def normalise_on_host(x):
    host = torch.device("cpu")
    y = x.to(host)  # E: device-cpu-target
    return torch.tensor(y.numpy() / y.numpy().sum(), device=x.device)
