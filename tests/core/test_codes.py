"""One code registry (device_types/_codes.py): every front end takes its codes from it, each
code's name is written in exactly one definition, docs/errors.md has one section per code,
and ``device-types explain`` prints a code's entry."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from device_types import _codes, _links

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted(p for d in ("device_types", "mypy_plugin", "stubs") for p in (ROOT / d).rglob("*.py"))
CODE_LITERAL = re.compile(r"""["']((?:device|audit)-[a-z]+(?:-[a-z]+)*)["']""")
REGISTRY = ROOT / "device_types" / "_codes.py"


def test_each_code_name_is_written_in_exactly_one_definition() -> None:
    names = {c.name for c in _codes.ALL}
    written: dict[str, list[str]] = {}
    for path in SOURCES:
        for match in CODE_LITERAL.finditer(path.read_text(encoding="utf-8")):
            if match.group(1) in names:
                written.setdefault(match.group(1), []).append(str(path.relative_to(ROOT)))
    assert {name: places for name, places in written.items() if places != ["device_types/_codes.py"]} == {}
    assert sorted(written) == sorted(names)


def test_names_are_unique_and_prefixed() -> None:
    assert len({c.name for c in _codes.ALL}) == len(_codes.ALL) == 38
    for code in _codes.ALL:
        assert code.name.startswith("audit-" if code.front_ends == (_codes.AUDIT,) else "device-"), code.name
        assert set(code.front_ends) <= set(_codes.FRONT_ENDS) and code.front_ends
        assert code.severity in {"error", "warning"}
        assert code.summary and code.bad and code.good, code.name
        assert set(code.messages) <= set(code.front_ends), code.name
        assert code.default_enabled or code.enable, code.name


def test_the_plugin_derives_its_error_codes() -> None:
    from mypy_plugin import errorcodes

    derived = {(c.code, c.description, c.default_enabled) for c in errorcodes.ALL_CODES}
    assert derived == {(c.name, c.summary, c.default_enabled) for c in _codes.codes_of(_codes.PLUGIN)}


def test_the_check_and_the_audit_emit_only_registered_codes() -> None:
    from device_types._check import _codes as check_codes

    check = {v for k, v in vars(check_codes).items() if k.isupper()}
    assert check == {c.name for c in _codes.codes_of(_codes.CHECK)}
    # the audit names its codes as attributes of the registry (codes.ORPHAN_ROW): every one
    # it uses is an audit code, and every audit code is used somewhere
    audit_source = "".join(p.read_text() for p in sorted((ROOT / "device_types" / "_audit").glob("*.py")))
    used = set(re.findall(r"\bcodes\.([A-Z_]+)\b", audit_source))
    by_attribute = {k: v for k, v in vars(_codes).items() if isinstance(v, _codes.Code)}
    assert {by_attribute[name].name for name in used} == {c.name for c in _codes.codes_of(_codes.AUDIT)}


def test_errors_md_has_one_section_per_code_and_the_generated_index() -> None:
    text = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    sections = re.findall(r"^## ((?:device|audit)-[a-z-]+)$", text, re.MULTILINE)
    assert sections == [c.name for c in _codes.ALL]
    assert _codes.markdown_index() in text
    for code in _codes.ALL:  # each section is the registry's, as generated (tools/generate_docs.py)
        assert f"\n{_codes.markdown_section(code)}\n" in text, f"docs/errors.md: the {code.name} section is stale"


#: A template field left unfilled: ``{what}``, ``{cell!r}``.
TEMPLATE_FIELD = re.compile(r"\{[a-z_]+(?:![rs])?\}")


def test_every_explain_renders_its_examples_and_matches_errors_md() -> None:
    """``device-types explain CODE`` shows the summary, a rendered example message per front
    end (no template braces), a bad and a good example, how to silence it and the docs link,
    with the same text as the code's section of docs/errors.md."""
    section_of = dict(re.findall(r"^## ((?:device|audit)-[a-z-]+)\n(.*?)(?=^## (?:device|audit)-|\Z)",
                                 (ROOT / "docs" / "errors.md").read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL))
    for code in _codes.ALL:
        text = _codes.explain(code)
        assert not TEMPLATE_FIELD.search(text), (code.name, TEMPLATE_FIELD.findall(text))
        assert set(code.examples) == set(code.messages), code.name
        section = section_of[code.name]
        assert f"**{code.summary}.**" in " ".join(section.split())
        for front_end in code.examples:
            example = _codes.example_message(code, front_end)
            assert example in text and f"```\n{example}\n```" in section, (code.name, front_end)
            assert example.endswith(f"; run device-types explain {code.name}  [{code.name}]" if front_end == "plugin"
                                    else f"; run device-types explain {code.name} [{code.name}]")
        for example in (code.bad, code.good):
            assert "\n".join(f"  {line}" if line else "" for line in example.splitlines()) in text
            assert f"\n{example}\n```" in section
        assert " ".join(_codes.silence(code).split()) in " ".join(text.split())
        assert " ".join(_codes.silence(code).split()) in " ".join(section.split())
        assert text.splitlines()[-1] == f"docs: {_links.code_url(code.name)}"


def test_explain_prints_the_entry_and_unknown_codes_exit_2() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "device_types", "explain", *args], cwd=ROOT,
                              capture_output=True, text=True)

    known = run("audit-orphan-row")
    assert known.returncode == 0
    assert known.stdout.splitlines()[0] == "audit-orphan-row: An open row has no marker in its backend"
    assert "bad:\n  | aten.index_put | npu |" in known.stdout and "\ngood:\n" in known.stdout
    opt_in = run("device-host-sync").stdout
    assert "on by default: no (turn it on: mypy --enable-error-code device-host-sync" in opt_in
    assert "example (plugin):" in opt_in and "example (check):" in opt_in
    listing = run()
    assert listing.returncode == 0 and len(listing.stdout.splitlines()) == len(_codes.ALL)
    unknown = run("device-nonsense")
    assert (unknown.returncode, unknown.stdout) == (2, "")
    assert unknown.stderr == ("device-types explain: error: unknown code 'device-nonsense'; "
                              "'device-types explain' lists every code\n")


def test_every_message_ends_with_the_explain_command() -> None:
    assert _codes.explain_tail(_codes.READBACK) == "run device-types explain device-readback"
    for path in (ROOT / "examples" / "expected").glob("*.txt"):
        for line in path.read_text().splitlines():
            match = re.search(r" +\[((?:device|audit)-[a-z-]+)\]$", line)
            if match:
                assert line[: match.start()].endswith(f"; run device-types explain {match.group(1)}"), line
