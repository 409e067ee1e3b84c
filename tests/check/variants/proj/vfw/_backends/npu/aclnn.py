"""ACLNN kernel launchers (device code: no host data)."""


def launch(name, *args):
    return (name, args)


def gather(a, dim, index):
    return launch("aclnnGather", a, dim, index)


def nonzero(a):
    return launch("aclnnNonzero", a)


def empty(shape, dtype, device):
    return launch("empty", shape, dtype, device)
