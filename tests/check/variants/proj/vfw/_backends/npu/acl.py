"""Stand-in for the vendor's ctypes bindings (no bodies the analysis can see into)."""
ACL_MEMCPY_DEVICE_TO_HOST = 2
ACL_MEMCPY_DEVICE_TO_DEVICE = 3
rt = None
