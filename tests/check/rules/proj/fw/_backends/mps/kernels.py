"""Native kernels (opaque to the check: device code)."""


def exp(a):
    return a._kernel("exp")


def cumsum(a):
    return a._kernel("cumsum")


def sort(a):
    return a._kernel("sort")
