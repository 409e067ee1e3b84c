from __future__ import annotations

import numpy as np
import torch

from device_types import MPS, Tensor


def compare(x: Tensor[MPS]) -> bool:
    return bool((x.numpy() > 0).any())  # mistake: device-readback; pyright: reportAttributeAccessIssue; advice: ".numpy()" copies tensor data to the host


def indices(mask: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    idx = [i for i, v in enumerate(mask.tolist()) if v]  # mistake: device-readback; pyright: none
    return x[torch.tensor(idx, device=x.device)]


def round_trip(x: torch.Tensor) -> torch.Tensor:
    host = x.numpy()  # mistake: device-readback; pyright: none
    return torch.from_numpy(np.exp(host) > 0.5).to(x.device)


def via_cpu(x: Tensor[MPS]) -> Tensor[MPS]:
    return torch.from_numpy(np.log1p(x.cpu().numpy())).to(x.device)  # mistake: device-cpu-call; pyright: none
