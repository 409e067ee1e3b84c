"""What ``device-types check`` runs (its options: ``device_types._cli``)."""

from __future__ import annotations

import argparse
import os
import sys

from .. import _codes
from .._cli import DEFAULT_BACKENDS, UsageError, emit
from .._config import Config, ConfigError, load_config_option
from .._finding import Finding
from .._report import Report, json_error, render
from . import CheckResult
from . import _pipeline as pipeline
from . import _codes as codes

PROG = "device-types check"


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (ConfigError, UsageError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        if args.format == "json" and not args.inventory:
            emit(json_error("check", str(exc)), args.output)
        return 2


def _recover(root: str) -> None:
    """A change of ``audit --fix --write`` that was killed midway is finished or undone
    (``_journal``) before any file is read; one line on standard error when there was one."""
    from .._files import JOURNAL

    if not os.path.lexists(os.path.join(root, JOURNAL)):
        return
    from .._journal import JournalError, recover

    try:
        done = recover(root, sweep=False)
    except JournalError as exc:
        raise UsageError(str(exc)) from None
    if done is not None:
        print(f"{PROG}: {done}", file=sys.stderr)


def _run(args: argparse.Namespace) -> int:
    from . import check_paths

    _recover(".")
    config = load_config_option(args.config, ".")
    try:
        selection = pipeline.Selection.of(config, args.enable, args.disable)
    except pipeline.SelectionError as exc:
        raise UsageError(str(exc)) from None
    paths = args.paths or ["."]
    missing = [p for p in paths if not os.path.lexists(p)]
    if missing:
        raise UsageError(f"{missing[0]!r} does not exist; pass the files or directories of the backend code")
    result: CheckResult = check_paths(paths, config, host_sync=selection.host_sync, use_cache=not args.no_cache)
    if result.backend_files == 0:
        raise UsageError(_no_backend(paths, result, config))
    findings = selection.keep(result.findings)

    if args.write_baseline:
        from ._baseline import BaselineError, write_baseline

        if result.problems and not args.allow_unanalysed:
            first = result.problems[0]
            more = len({p.path for p in result.problems}) - 1
            raise UsageError(f"not writing the baseline: {first.path} was not analysed ({first.message})"
                             + (f" and {more} more file{'s' if more != 1 else ''}" if more else "")
                             + "; its findings would all look new once it is; fix it, or pass --allow-unanalysed")

        try:
            write_baseline(args.write_baseline, findings)
        except BaselineError as exc:
            raise UsageError(str(exc)) from None
        print(f"wrote {len(findings)} finding{'s' if len(findings) != 1 else ''} to {args.write_baseline}")
        return 0

    baseline_path = args.baseline or config.check.baseline
    baselined = pipeline.against_baseline(findings, baseline_path)
    if baselined.error is not None:
        raise UsageError(baselined.error)
    findings, fixed = baselined.findings, baselined.fixed

    if args.inventory:
        from ._inventory import inventory

        text, missing_rows = inventory(result, findings, config, args.inventory)
        emit(text, args.output)
        return 1 if missing_rows else 0

    problems = [Finding(p.path, p.line, None, codes.UNANALYSED, f"{p.message}; {_codes.explain_tail(codes.UNANALYSED)}")
                for p in result.problems]
    exit_code = 2 if problems else 1 if findings else 0
    summary_line = _summary_line(result.files, result.functions, findings, problems, fixed, bool(baseline_path))
    from .. import __version__

    report = Report(
        "check", findings, summary_line,
        {"findings": len(findings), "files": result.files, "functions": result.functions,
         "functions_with_findings": len({(f.path, f.function) for f in findings}),
         "files_not_analysed": len(problems), "backends": result.backends},
        exit_code, problems, {"fixed_baseline_entries": fixed},
        [f"fixed (remove from the baseline): {e['path']}: {e['function']}: {e['anchor']} [{e['code']}]" for e in fixed],
        __version__, docs_url=config.docs_url)
    emit(render(report, args.format), args.output)
    if args.output is not None:
        print(summary_line)
    return exit_code


def _no_backend(paths: list[str], result: CheckResult, config: Config) -> str:
    where = ", ".join(repr(p) for p in paths)
    files = f"{result.files} Python file{'' if result.files == 1 else 's'}"
    if config.backends:
        rule = f"[tool.device_types] backends names {', '.join(sorted(config.backends))}"
    else:
        rule = f"without [tool.device_types] backends, a backend is a {DEFAULT_BACKENDS} package"
    return f"no backend module among the {files} under {where} ({rule}); check the paths and the backends"


def _summary_line(files: int, functions: int, findings: list[Finding], problems: list[Finding],
                  fixed: list[dict[str, object]], baselined: bool) -> str:
    def count(n: int, noun: str) -> str:
        return f"{n} {noun}{'' if n == 1 else 's'}"

    functions_hit = len({(f.path, f.function) for f in findings})
    scope = f"{count(functions, 'function')} in {count(files, 'file')}"
    new = "new " if baselined else ""
    tail = f"; {count(len(fixed), 'baseline entry')} fixed" if fixed else ""
    if not findings:
        verdict = f"no {new}fallback in {scope}{tail}"
    else:
        verdict = f"{count(len(findings), new + 'finding')} in {count(functions_hit, 'function')} of {scope}{tail}"
    if problems:
        return f"check incomplete: {count(len({p.path for p in problems}), 'file')} not analysed; {verdict}"
    return f"check {'failed' if findings else 'clean'}: {verdict}"
