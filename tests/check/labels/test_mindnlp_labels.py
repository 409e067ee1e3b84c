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
HOST = re.compile(r"\bnp\.|numpy|asnumpy|\.item\(\)|tolist\(|\.cpu\(|mindspore\.tensor\(|mindspore\.Tensor\(|['\"]cpu['\"]")


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


def test_a_relabelled_verdict_keeps_its_old_reason(data: dict) -> None:
    """Issue 24 turned the three fallbacks (index maps of metadata) clean: each says so and why it was one."""
    relabelled = [e for e in data["functions"] if "relabelled from" in e["why"]]
    assert {(e["path"], e["function"]) for e in relabelled} >= {
        ("mindtorch/_apis/gpu.py", "as_strided"), ("mindtorch/_apis/npu.py", "as_strided_manual"),
        ("mindtorch/_apis/npu.py", "slice")}
    assert all(e["label"] == "clean" and "issue 24" in e["why"] and "Was: " in e["why"] for e in relabelled), relabelled


def test_an_indirect_fallback_names_a_labelled_fallback(data: dict) -> None:
    """A ``why`` of "indirect: a -> b -> ..." leads to a function labelled fallback in the same module."""
    verdicts = {(e["path"], e["function"]): e["label"] for e in data["functions"]}
    broken = []
    for e in data["functions"]:
        if e["why"].startswith("indirect:"):
            hops = [h.strip() for h in e["why"].removeprefix("indirect:").split("->")]
            if e["label"] != "fallback" or verdicts.get((e["path"], hops[1].split()[0])) != "fallback":
                broken.append(e)
    assert not broken, broken


def test_every_label_names_a_backend_function(data: dict, functions: dict) -> None:
    unknown = [(e["path"], e["function"]) for e in data["functions"] if (e["path"], e["function"]) not in functions]
    assert not unknown, unknown


def unlabelled_host_functions(data: dict, functions: dict) -> list[tuple[str, str]]:
    labelled = {(e["path"], e["function"]) for e in data["functions"]}
    body = {k: "\n".join(line for line in src.splitlines()[1:] if not line.strip().startswith("#"))
            for k, src in functions.items()}
    return sorted(k for k, src in body.items() if HOST.search(src) and k not in labelled)


def test_every_host_ish_backend_function_is_labelled(data: dict, functions: dict) -> None:
    missing = unlabelled_host_functions(data, functions)
    assert not missing, missing


def test_the_coverage_check_can_fail(data: dict, functions: dict) -> None:
    """Dropping the label of a function that uses numpy is noticed (the selection is not vacuous)."""
    dropped = {**data, "functions": [e for e in data["functions"] if e["function"] != "as_strided_manual"]}
    assert unlabelled_host_functions(dropped, functions) == [("mindtorch/_apis/npu.py", "as_strided_manual")]
