"""The runtime's copy entry points (compiled in a real framework)."""


def memcpy_d2d(dst, src, nbytes):
    return _acl_memcpy(dst, nbytes, src, nbytes, 3)


def _acl_memcpy(dst, dst_size, src, src_size, kind):
    raise NotImplementedError
