"""The framework's dtype objects (names, as candle's ``float32_dtype``)."""


class DType:
    def __init__(self, name):
        self.name = name


float16_dtype = DType("float16")
float32_dtype = DType("float32")
int32_dtype = DType("int32")
bool_dtype = DType("bool")
