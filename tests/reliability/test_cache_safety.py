"""The cache (``.device_types_cache/``) runs nothing and believes nothing it did not write:
a pickled payload, a crafted JSON file or a same-length edit with its time put back are
each a cache miss, and the output is the ``--no-cache`` one."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

from tests.reliability.conftest import ENGINE, cli, no_traceback

CACHE = ".device_types_cache"


class _Payload:
    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, ...]:
        return (os.system, (f"touch {self.marker}",))


def _plant_everywhere(project: Path, data: bytes) -> None:
    cache = project / CACHE
    cache.mkdir(exist_ok=True)
    names = ["index.pickle", "index.json"] + [p.name for p in cache.glob("*.json")] + [p.name for p in cache.glob("*.pickle")]
    for name in names:
        (cache / name).write_bytes(data)


def test_a_pickled_payload_in_the_cache_runs_nothing(project: Path, tmp_path: Path) -> None:
    cold = cli("check", "--no-cache", "fw", cwd=project)
    assert cold.returncode == 1
    cli("check", "fw", cwd=project)  # a cache, whose every file is then replaced by the payload
    marker = tmp_path / "ran"
    _plant_everywhere(project, pickle.dumps(_Payload(marker)))
    run = cli("check", "fw", cwd=project)
    assert not marker.exists(), "the cache ran code"
    assert (run.returncode, run.stdout) == (1, cold.stdout)
    # and in the editor: the language server's session reads the same cache
    _plant_everywhere(project, pickle.dumps(_Payload(marker)))
    code = ("import sys; from device_types._check._session import CheckSession; "
            "from device_types._config import load_config; "
            "s = CheckSession('.', load_config('pyproject.toml')); r = s.run(); print(len(r.findings))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ENGINE)})
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "the language server's cache ran code"
    assert int(proc.stdout) == sum(1 for line in cold.stdout.splitlines() if line.endswith("]"))


def _rewrite_index(project: Path, change: object) -> None:
    path = project / CACHE / "index.json"
    magic, header, body = path.read_bytes().split(b"\n", 2)
    head = json.loads(header)
    change(head)  # type: ignore[operator]
    path.write_bytes(b"\n".join([magic, json.dumps(head).encode(), body]))


def test_a_crafted_json_cache_is_a_miss(project: Path) -> None:
    cold = cli("check", "--no-cache", "fw", cwd=project)
    crafted = [
        lambda head: head["classes"].__setitem__(0, "os:system"),  # a class outside the allow-list
        lambda head: head["classes"].__setitem__(0, "subprocess:Popen"),
        lambda head: head["classes"].__setitem__(0, "device_types._check._cache:not_there"),
        lambda head: head["constants"].append("os:environ"),
    ]
    for change in crafted:
        shutil.rmtree(project / CACHE, ignore_errors=True)
        cli("check", "fw", cwd=project)
        _rewrite_index(project, change)
        run = cli("check", "fw", cwd=project)
        no_traceback(run)
        assert (run.returncode, run.stdout) == (1, cold.stdout)
    # a field of the wrong type, a module file outside the cache directory, deep nesting
    for body in (b'{"c":[0,1,2,3]}', b"[" * 100_000 + b"]" * 100_000, b'{"x": 1}'):
        shutil.rmtree(project / CACHE, ignore_errors=True)
        cli("check", "fw", cwd=project)
        path = project / CACHE / "index.json"
        magic, header, _ = path.read_bytes().split(b"\n", 2)
        path.write_bytes(b"\n".join([magic, header, body]))
        run = cli("check", "fw", cwd=project)
        no_traceback(run)
        assert (run.returncode, run.stdout) == (1, cold.stdout)


def test_a_module_file_with_bad_facts_reruns_cold(project: Path) -> None:
    """A record's facts are read on first use: one that does not read back makes the run
    start again without the cache, never a traceback or a stale result."""
    cold = cli("check", "--no-cache", "fw", cwd=project)
    cli("check", "fw", cwd=project)
    blobs = list((project / CACHE).glob("fw._backends.mps.ops.*.json"))
    assert blobs
    for blob in blobs:
        data = blob.read_bytes()
        # every stored facts document (a line of the module's file after the body) made unreadable
        assert data.count(b'\n{"c":[') > 3
        blob.write_bytes(data.replace(b'\n{"c":[', b'\n{"c":[999,'))
    ops = project / "fw/_backends/mps/ops.py"
    ops.write_text(ops.read_text(encoding="utf-8") + "\n\ndef extra(x):\n    return x\n", encoding="utf-8")
    run = cli("check", "fw", cwd=project)
    no_traceback(run)
    assert run.returncode == 1
    assert run.stdout.splitlines()[:-1] == cold.stdout.splitlines()[:-1]


def test_a_same_length_edit_with_its_time_put_back_is_seen(project: Path) -> None:
    """``cp -p``, ``rsync -a`` and ``tar`` keep the size and the time: only the content tells."""
    cli("check", "fw", cwd=project)
    ops = project / "fw/_backends/mps/ops.py"
    before = os.stat(ops)
    text = ops.read_text(encoding="utf-8")
    edited = text.replace("def relu(", "def reLU(", 1)
    assert edited != text and len(edited) == len(text)
    ops.write_text(edited, encoding="utf-8")
    os.utime(ops, ns=(before.st_atime_ns, before.st_mtime_ns))
    cached = cli("check", "fw", cwd=project)
    cold = cli("check", "--no-cache", "fw", cwd=project)
    assert cached.stdout == cold.stdout
    assert '"reLU"' in cached.stdout


def test_the_cache_key_covers_the_code_registry(tmp_path: Path) -> None:
    """Editing a message template in ``_codes.py`` (or the vocabulary, or the op table) is a
    new engine: a cache written by the old one is not used."""
    engine = tmp_path / "engine"
    shutil.copytree(ENGINE / "device_types", engine / "device_types",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = ("from device_types._check import _cache; from device_types._config import Config; "
            "print(_cache.fingerprint(_cache.check_settings(Config())))")

    def key() -> str:
        return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONPATH": str(engine)}).stdout

    first = key()
    for name in ("_codes.py", "_vocabulary.py", "_semantics.py", "_finding.py"):
        source = engine / "device_types" / name
        source.write_text(source.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
        assert key() != first, name
        first = key()
