"""The host vocabulary is data (``device_types._vocabulary``): two idioms of candle's family that
the built-in vocabulary knows, and a framework that spells a copy its own way, taught with one
configuration line. Each idiom also has its absent twin, which must give nothing."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from device_types._config import ConfigError, load_config
from tests.check.conftest import run_cli

BACKENDS = '[tool.device_types]\nbackends = { "fw._backends.npu" = "npu" }\n'


def _project(tmp_path: Path, source: str, config: str = "") -> Path:
    pkg = tmp_path / "fw" / "_backends" / "npu"
    pkg.mkdir(parents=True)
    for folder in (tmp_path / "fw", tmp_path / "fw" / "_backends", pkg):
        (folder / "__init__.py").write_text("")
    (pkg / "ops.py").write_text(textwrap.dedent(source))
    (tmp_path / "pyproject.toml").write_text(BACKENDS + config)
    return tmp_path


def _findings(root: Path) -> list[tuple[str, int, str]]:
    run = run_cli("--format", "json", "--no-cache", "fw", cwd=root)
    assert run.returncode in (0, 1), run.stderr
    return [(f["function"], f["line"], f["code"]) for f in run.json()["findings"]]


ACL_KIND = """\
import ctypes
import acl
import numpy as np


def cumsum(a, out):
    host = np.empty(a.numel(), dtype=np.float32)
    acl.rt.memcpy(host.ctypes.data, host.nbytes, a.data_ptr(), host.nbytes, {kind})
    out.upload(np.cumsum(host))
    return out
"""


def test_an_acl_copy_whose_direction_is_device_to_host_reads_back(tmp_path: Path) -> None:
    root = _project(tmp_path, ACL_KIND.format(kind=2))  # 2: ACL_MEMCPY_DEVICE_TO_HOST
    assert _findings(root) == [("cumsum", 8, "device-readback")]


def test_an_acl_copy_on_the_device_is_not_a_readback(tmp_path: Path) -> None:
    root = _project(tmp_path, ACL_KIND.format(kind=3))  # 3: ACL_MEMCPY_DEVICE_TO_DEVICE
    assert _findings(root) == []


CTYPES_BUFFER = """\
import ctypes
import numpy as np


def argmax(a):
    buf = (ctypes.c_char * a.nbytes)()
    {copy}
    values = np.frombuffer(buf, dtype=np.float32)
    return a.device.tensor(np.argmax(values), device=a.device)
"""


def test_a_device_copy_into_a_ctypes_buffer_read_with_frombuffer_reads_back(tmp_path: Path) -> None:
    root = _project(tmp_path, CTYPES_BUFFER.format(copy="ctypes.memmove(buf, a.data_ptr(), a.nbytes)"))
    assert _findings(root) == [("argmax", 7, "device-readback")]


def test_a_ctypes_buffer_filled_on_the_host_is_not_a_readback(tmp_path: Path) -> None:
    root = _project(tmp_path, CTYPES_BUFFER.format(copy="buf[0] = b'x'"))
    assert _findings(root) == []


OWN_SPELLING = """\
import numpy as np
from fw.hal import transfer


def sort(a, out):
    host = np.empty(a.numel(), dtype=np.float32)
    transfer(host.ctypes.data, a.data_ptr(), host.nbytes, 7)
    out.upload(np.sort(host))
    return out
"""
ONE_LINE = '\n[tool.device_types.check.vocabulary]\ncopy_apis = [{ name = "transfer", kind = 3, device_to_host = [7] }]\n'


def test_a_framework_spelling_is_taught_with_one_configuration_line(tmp_path: Path) -> None:
    without = _project(tmp_path / "without", OWN_SPELLING)
    assert _findings(without) == []  # the check cannot know that 7 means device-to-host
    taught = _project(tmp_path / "taught", OWN_SPELLING, ONE_LINE)
    assert _findings(taught) == [("sort", 7, "device-readback")]


def test_readback_names_extend_the_built_in_patterns(tmp_path: Path) -> None:
    source = "import numpy as np\nfrom fw.hal import fetch_host\n\n\ndef exp(a, out):\n" \
             "    out.upload(np.exp(fetch_host(a)))\n    return out\n"
    assert _findings(_project(tmp_path / "a", source)) == []
    config = '\n[tool.device_types.check.vocabulary]\nreadback_patterns = ["^fetch_host$"]\n'
    assert _findings(_project(tmp_path / "b", source, config)) == [("exp", 6, "device-readback")]


STORAGE = """\
import numpy as np


def cumsum(a, out):
    host = np.asarray(a.{storage}.{view})
    out.upload(np.cumsum(host))
    return out
"""


def test_a_storage_host_view_reads_back_and_a_framework_names_its_own(tmp_path: Path) -> None:
    """``t._storage.data`` is a host view of the tensor (``storage_accessors``, then
    ``storage_host_views``); a tensor's own ``.data`` is not; another framework's spelling
    (``t._mem.host``) is two vocabulary lines."""
    assert _findings(_project(tmp_path / "a", STORAGE.format(storage="_storage", view="data"))) == \
        [("cumsum", 5, "device-readback")]
    assert _findings(_project(tmp_path / "b", STORAGE.format(storage="untyped_storage()", view="buffer()"))) == \
        [("cumsum", 5, "device-readback")]
    own = STORAGE.format(storage="_mem", view="host")
    assert _findings(_project(tmp_path / "c", own)) == []
    config = '\n[tool.device_types.check.vocabulary]\nstorage_accessors = ["_mem"]\nstorage_host_views = ["host"]\n'
    assert _findings(_project(tmp_path / "d", own, config)) == [("cumsum", 5, "device-readback")]
    source = "import numpy as np\n\n\ndef relu(a, out):\n    out.upload(a.data.relu())\n    return out\n"
    assert _findings(_project(tmp_path / "e", source)) == []


@pytest.mark.parametrize(("table", "message"), [
    ('nonsense = ["x"]', "unknown key 'nonsense'"),
    ('readback_patterns = ["("]', "is not a regular expression"),
    ('host_modules = "numpy"\ncopy_apis = [{ name = "x" }]', "each entry needs name"),
    ('host_modules = [1]', "must be a list of strings"),
])
def test_a_broken_vocabulary_is_one_clear_line(tmp_path: Path, table: str, message: str) -> None:
    (tmp_path / "pyproject.toml").write_text(BACKENDS + "\n[tool.device_types.check.vocabulary]\n" + table + "\n")
    with pytest.raises(ConfigError, match=message):
        load_config(str(tmp_path / "pyproject.toml"))
    run = run_cli("--no-cache", ".", cwd=tmp_path)
    assert run.returncode == 2 and len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
