"""The plugin forced into its per-call dispatch (what dmypy runs), for the test that both
dispatches report the same: mypy loads it by path from the copied configuration."""

from __future__ import annotations

from device_types_mypy.main import DeviceTypesPlugin


class PerCallPlugin(DeviceTypesPlugin):
    PER_CALL = True


def plugin(version: str) -> type[DeviceTypesPlugin]:
    return PerCallPlugin
