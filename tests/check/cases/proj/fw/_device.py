"""The framework's device objects: ``fw.cpu`` and an alias of it in another module."""


class Device:
    def __init__(self, kind):
        self.type = kind


cpu = Device("cpu")
HOST = cpu
