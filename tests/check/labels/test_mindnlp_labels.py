"""The labels of the second framework (mindtorch in the mindnlp 0.5.1 wheel) fit the wheel.

No engine: every label names a top-level function of a backend module, and every function
of those modules whose own body mentions a host construct (the file's ``selection``) has a
verdict. The wheel comes from the registry at test time (``tests/registry.py``).
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from tests.registry import unpacked

LABELS = Path(__file__).parent / "mindnlp-0.5.1.json"
HOST = re.compile(r"\bnp\.|numpy|asnumpy|\.item\(\)|tolist\(|mindspore\.tensor\(|mindspore\.Tensor\(|['\"]cpu['\"]")


@pytest.fixture(scope="module")
def data() -> dict:
    return json.loads(LABELS.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def functions(data: dict) -> dict[tuple[str, str], str]:
    """(path, name) -> source of every top-level function of the labelled backend modules."""
    root = unpacked("mindnlp", "0.5.1", ("mindtorch/*",))
    out = {}
    for module in data["backends"]:
        path = module.replace(".", "/") + ".py"
        source = (root / path).read_text(encoding="utf-8")
        lines = source.splitlines()
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[(path, node.name)] = "\n".join(lines[node.lineno - 1:node.end_lineno])
    return out


def test_labels_have_the_documented_shape(data: dict) -> None:
    assert data["corpus"] == "mindnlp==0.5.1"
    bad = [e for e in data["functions"] if set(e) != {"path", "function", "label", "why"}
           or e["label"] not in {"fallback", "host-sync", "clean"} or not e["why"].strip()]
    assert not bad, bad[:5]
    keys = [(e["path"], e["function"]) for e in data["functions"]]
    assert len(keys) == len(set(keys))
    assert sum(e["label"] == "fallback" for e in data["functions"]) >= 3


def test_every_label_names_a_backend_function(data: dict, functions: dict) -> None:
    unknown = [(e["path"], e["function"]) for e in data["functions"] if (e["path"], e["function"]) not in functions]
    assert not unknown, unknown


def test_every_host_ish_backend_function_is_labelled(data: dict, functions: dict) -> None:
    labelled = {(e["path"], e["function"]) for e in data["functions"]}
    body = {k: "\n".join(line for line in src.splitlines()[1:] if not line.strip().startswith("#"))
            for k, src in functions.items()}
    missing = sorted(k for k, src in body.items() if HOST.search(src) and k not in labelled)
    assert not missing, missing
