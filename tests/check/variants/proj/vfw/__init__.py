"""A small framework of the family: its own tensor, device objects and functional ops."""
from .tensor import Tensor, device, tensor
from .dtypes import float16, float32, int64
