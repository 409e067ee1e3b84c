"""The framework's dtypes (names, as the backends compare them)."""
float32 = "float32"
float16 = "float16"
int64 = "int64"
