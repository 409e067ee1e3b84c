"""ACLNN kernel launchers (device code: no host data)."""
from . import _aclnn  # the native extension (not in this project: what it does is not known)


def launch(name, *args):
    return _aclnn.run(name, args)


def gather(a, dim, index):
    return launch("aclnnGather", a, dim, index)


def nonzero(a):
    return launch("aclnnNonzero", a)


def empty(shape, dtype, device):
    return launch("empty", shape, dtype, device)
