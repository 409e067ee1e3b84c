"""The CPU backend: numpy on host arrays."""
import numpy as np


def sort(a, dim=-1):
    return np.sort(a, axis=dim)


def relu(a):
    return np.maximum(a, 0)
