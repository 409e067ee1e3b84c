"""A small backend project for the server tests: two backend files and a helper module, so
that an edit of the helper changes its callers' findings in another file."""

from __future__ import annotations

from pathlib import Path

import pytest

PYPROJECT = """\
[project]
name = "fw"

[tool.device_types]
backends = { "fw._backends.mps" = "mps" }
"""

HELPERS = '''\
import numpy as np


def to_numpy(a):
    return a.cpu().numpy()


def from_numpy(arr, dtype, device):
    return device.allocate_from(np.ascontiguousarray(arr))


def host_sort(a):
    return from_numpy(np.sort(to_numpy(a)), a.dtype, a.device)
'''

OPS = '''\
import numpy as np

from ..common.helpers import from_numpy, to_numpy
from . import sorting


def relu(a):
    return from_numpy(np.maximum(to_numpy(a), 0), a.dtype, a.device)


def add(a, b):
    return a + b


def topk(a, k):
    values = sorting.sort(a)
    return values[:k]
'''

SORTING = '''\
import numpy as np

from ..common.helpers import from_numpy, to_numpy


def sort(a):
    return a.sort()
'''

FILES = {
    "pyproject.toml": PYPROJECT,
    "fw/__init__.py": "",
    "fw/_backends/__init__.py": "",
    "fw/_backends/common/__init__.py": "",
    "fw/_backends/common/helpers.py": HELPERS,
    "fw/_backends/mps/__init__.py": "",
    "fw/_backends/mps/ops.py": OPS,
    "fw/_backends/mps/sorting.py": SORTING,
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
