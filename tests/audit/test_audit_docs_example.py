"""docs/audit.md's --fix example is the real command's output on the files it shows."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from audit_tree import Project

DOC = (Path(__file__).resolve().parents[2] / "docs" / "audit.md").read_text()
SECTION = DOC[DOC.index("## Converging on the policy: `--fix`") : DOC.index("## Output")]
FILES = ("pyproject.toml", "docs/known-kernel-issues.md", "src/candle/_backends/npu/ops.py")


def test_fix_example_in_the_docs_is_what_the_command_prints(project: Project) -> None:
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", SECTION, re.MULTILINE | re.DOTALL)
    assert [kind for kind, _ in blocks] == ["toml", "markdown", "python", "console", "console", "console", "console"]
    for path, (_, text) in zip(FILES, blocks):
        project.write(path, text)
    sessions = [text for kind, text in blocks if kind == "console"]
    commands = 0
    for session in sessions:
        for command in re.split(r"^(?=\$ )", session, flags=re.MULTILINE):
            if not command:
                continue
            prompt, *shown = command.splitlines()
            args = shlex.split(prompt)[3:]  # after "$ device-types audit"
            assert project.run(*args).lines == shown, prompt
            commands += 1
    assert commands == 5


def test_the_recovery_line_in_the_docs_is_what_the_next_run_prints(project: Project) -> None:
    """"After a crash": ``--fix --write`` on the example killed once its journal says commit
    (before its first rename); the next ``audit`` prints the line the docs show, first."""
    import signal

    from tests.reliability.test_kill import killed_at

    crash = DOC[DOC.index("## How `--fix --write` writes, and after a crash"):DOC.index("## Finding codes")]
    (shown,) = re.findall(r"^```console\n\$ device-types audit\n(.*?)\n```$", crash, re.MULTILINE | re.DOTALL)
    blocks = re.findall(r"^```(\w+)\n(.*?)^```$", SECTION, re.MULTILINE | re.DOTALL)
    for path, (_, text) in zip(FILES, blocks):
        project.write(path, text)
    assert killed_at("replace", 2, ("audit", "--fix", "--write"), project.root) == -signal.SIGKILL
    assert project.run().stderr.splitlines()[0] == shown
