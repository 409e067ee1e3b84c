"""Fixture trees for ``device-types audit``, built in tmp_path (helpers; conftest.py holds
the fixture). The module name is unique so it cannot collide with other test helpers.

``Project`` writes files relative to a fresh root and runs the audit on it, returning the
exit status and the exact stdout/stderr lines, so tests can assert whole output lines.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from device_types._audit import main

OPEN = "open (workaround active)"
RESOLVED = "resolved (native kernel re-enabled)"
DOCS = "docs/known-kernel-issues.md"
HEADER = (
    "| Op name | Backend | Error description | Composite workaround | Platform version | Status |\n"
    "|---|---|---|---|---|---|"
)
#: Line of the first row when the document is written by ``Project.docs`` (title, blank, header, delimiter).
FIRST_ROW = 5


def row(
    op: str,
    backend: str = "mps",
    status: str = OPEN,
    workaround: str = "bmm + add + mul on the same device",
    error: str = "the Metal kernel crashes",
    platform: str = "macOS 15.3 / Metal 3",
) -> str:
    return f"| {op} | {backend} | {error} | {workaround} | {platform} | {status} |"


def guarded(op: str, issue: str | None = None, platform: str = "macOS 15.4") -> str:
    """A backend function whose native kernel waits behind a flag; the marker is on line 2."""
    issue = issue if issue is not None else f"aten.{op} crash on batched inputs"
    return textwrap.dedent(
        f"""\
        def {op}(x):
            # TODO: re-enable native kernel when {platform} fixes {issue}
            if USE_NATIVE:
                return _native_{op}(x)
            return {op}_composite(x)
        """
    )


@dataclass
class Outcome:
    code: int
    lines: list[str]
    stderr: str


class Project:
    def __init__(self, root: Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self._capsys = capsys

    def write(self, relative: str, text: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if text.startswith("\n") else text)
        return path

    def docs(self, *rows: str, title: str = "# Known kernel issues", header: str = HEADER) -> Path:
        return self.write(DOCS, "\n".join([title, "", header, *rows]) + "\n")

    def run(self, *args: str) -> Outcome:
        self._capsys.readouterr()
        code = main(["--root", str(self.root), *args])
        captured = self._capsys.readouterr()
        return Outcome(code, captured.out.splitlines(), captured.err)


def summary(findings: int, files: int, markers: int, rows: int, backends: str = "mps") -> str:
    """The audit's closing line for a failed run over one backend file."""

    def n(count: int, noun: str) -> str:
        return f"{count} {noun}{'' if count == 1 else 's'}"

    return (
        f"audit failed: {n(findings, 'finding')} in {n(files, 'file')}; checked {n(markers, 'marker')} "
        f"in 1 backend file ({backends}) against {n(rows, 'row')} of {DOCS}"
    )
