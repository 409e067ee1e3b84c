"""The advice of an indirect finding names the function to fix: the chain's root, where the
data reaches the host, not merely the callee the caller happens to call."""

from __future__ import annotations

import os
from pathlib import Path

from device_types._check import check_paths
from device_types._config import load_config

OPS = '''\
import numpy as np


def to_numpy(a):
    return a._numpy_view()


def _host_sort(a):
    return a.device.upload(np.sort(to_numpy(a)))


def sort(a):
    return _host_sort(a)


def topk(a, k):
    return sort(a)[:k]
'''


def test_an_indirect_finding_names_the_chains_root_to_fix(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.device_types]\nbackends = { "fw._backends.mps" = "mps" }\n')
    for package in ("fw", "fw/_backends", "fw/_backends/mps"):
        (tmp_path / package).mkdir(parents=True, exist_ok=True)
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "fw/_backends/mps/ops.py").write_text(OPS)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        result = check_paths(["."], load_config("pyproject.toml"), use_cache=False)
    finally:
        os.chdir(cwd)
    messages = {f.function: f.message for f in result.findings if f.code == "device-indirect-fallback"}
    # topk -> sort -> _host_sort: fix _host_sort, whose fix makes sort and topk clean
    assert messages["topk"].startswith('"topk" calls "sort()", which falls back to the host '
                                       '(topk -> sort -> _host_sort: "to_numpy(a)" at fw/_backends/mps/ops.py:9)')
    assert '; fix "_host_sort" on the device or compose on-device ops here;' in messages["topk"]
    assert '; fix "_host_sort" on the device or compose on-device ops here;' in messages["sort"]
