"""Pattern 12: a conditional expression picks the host path on one side only
(``... if exact else ...``): its readback is reached when the test holds."""
import numpy as np

from ..common.host import from_numpy, to_numpy


def roots_of(coeffs, exact=False):
    work = from_numpy(np.roots(to_numpy(coeffs)), coeffs.dtype, coeffs.device) if exact else coeffs  # E: device-readback
    return coeffs.device.roots_kernel(work)


def roots_fast(coeffs):
    return roots_of(coeffs, exact=False)


def roots_exact(coeffs):
    return roots_of(coeffs, exact=True)  # E: device-indirect-fallback
