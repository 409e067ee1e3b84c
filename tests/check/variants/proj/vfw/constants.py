"""The framework's named devices."""
CPU = "cpu"
