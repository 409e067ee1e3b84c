"""Pattern 13: every tensor of a list agrees on its dtype (candle's stack -> cat). ``cat``'s Metal
path needs GPU-eligible tensors that all share the first one's dtype; a caller that tests the
same of the list its list is made from (or passes views of one tensor) never reaches numpy."""
import numpy as np

from ..common.host import can_use_gpu, from_numpy, to_numpy


def cat(tensors, dim=0):
    if all(can_use_gpu(t) for t in tensors) and all(t.dtype == tensors[0].dtype for t in tensors):
        return tensors[0].device.kernel("cat", tensors, dim)
    arrays = [to_numpy(t) for t in tensors]  # E: device-readback
    return from_numpy(np.concatenate(arrays, axis=dim), tensors[0].dtype, tensors[0].device)


def stack(tensors, dim=0):
    if all(can_use_gpu(t) for t in tensors) and all(t.dtype == tensors[0].dtype for t in tensors):
        return cat([t.unsqueeze(dim) for t in tensors], dim=dim)
    return tensors[0].device.kernel("stack", tensors, dim)


def hstack(tensors):
    first = tensors[0]
    if not all(can_use_gpu(t) for t in tensors) or any(t.dtype != first.dtype for t in tensors):
        return first.device.kernel("hstack", tensors)
    return cat(tensors, dim=1)


def repeat_twice(a):
    if can_use_gpu(a):
        return cat([a, a.contiguous()], dim=0)
    return a.device.kernel("repeat", a, 2)


def stack_unchecked(tensors, dim=0):
    if all(can_use_gpu(t) for t in tensors):
        return cat([t.unsqueeze(dim) for t in tensors], dim=dim)  # E: device-indirect-fallback
    return tensors[0].device.kernel("stack", tensors, dim)


def repeat_any(a):
    return cat([a, a.contiguous()], dim=0)  # E: device-indirect-fallback
