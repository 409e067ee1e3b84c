"""Pattern 13: host data handed back through two helpers: the finding's hops name each
helper's call of the next, then the readback."""
from ..common.host import from_numpy, to_numpy


def _coeffs(points):
    return to_numpy(points.device.lstsq_kernel(points))


def _coefficients(points, given=None):
    if given is not None:
        return given
    return _coeffs(points)


def perspective(image, points):
    c = _coefficients(points)  # E: device-readback
    return image.device.mul_kernel(image, from_numpy(c * 2.0, image.dtype, image.device))
