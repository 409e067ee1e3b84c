"""A CUDA backend module whose config disables device-cpu-call; device-host-sync is off
by default (not enabled for this module)."""

import torch


def f(x: torch.Tensor) -> float:
    x.cpu()
    x.numpy()  # E: ".numpy()" copies tensor data to the host inside the cuda backend (pkg._backends.cuda); keep it on cuda and use an on-device composite of working ops; run device-types explain device-readback  [device-readback]
    x.to("mps")  # E: the result of ".to()" is on mps, not cuda, inside the cuda backend (pkg._backends.cuda); keep it on cuda; run device-types explain device-wrong-device  [device-wrong-device]
    return x.item()
