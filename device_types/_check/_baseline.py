"""Baselines: adopt the check on a tree that already holds hundreds of fallbacks.

An entry is keyed by what survives unrelated edits and line shifts: the file, the function's
qualified name, the code and the root as written (``"_to_numpy(a)"``), plus how many times
that key occurs (two identical roots in one function are two entries). Line numbers are kept
for people, never compared. CI then fails only on findings that are not in the baseline, and
lists the entries that no longer occur (fixed: delete them from the file).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence

from .._files import NotRegular, TooLarge, WriteError, read_regular, write_atomic
from .._finding import Finding

__all__ = ["BaselineError", "apply_baseline", "write_baseline"]

FORMAT = "device-types-baseline"
VERSION = 1


class BaselineError(Exception):
    """The baseline file is missing or malformed; ``str()`` is the user-facing line."""


def _key(finding: Finding | dict[str, object]) -> tuple[str, str, str, str]:
    if isinstance(finding, Finding):
        return finding.path.replace(os.sep, "/"), finding.function, finding.code, finding.anchor
    return (str(finding["path"]), str(finding["function"]), str(finding["code"]), str(finding["anchor"]))


def write_baseline(path: str, findings: Sequence[Finding]) -> None:
    entries = [
        {"path": f.path.replace(os.sep, "/"), "function": f.function, "code": f.code, "anchor": f.anchor,
         "line": f.line}
        for f in sorted(findings, key=lambda f: (f.path, f.line, f.code))
    ]
    text = json.dumps({"format": FORMAT, "version": VERSION, "entries": entries}, indent=1)
    try:
        write_atomic(path, text + "\n")
    except WriteError as exc:
        raise BaselineError(str(exc)) from None


#: A baseline is a hand-checked list, not a data dump: this is far above any real one.
MAX_BASELINE_BYTES = 64 * 1024 * 1024


def read_baseline(path: str) -> list[dict[str, object]]:
    try:
        data = json.loads(read_regular(path, MAX_BASELINE_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise BaselineError(f"baseline {path!r} does not exist; create it with --write-baseline {path}") from None
    except TooLarge as exc:
        raise BaselineError(f"baseline {path!r} is {exc.size // (1024 * 1024)} MiB, over the "
                            f"{MAX_BASELINE_BYTES // (1024 * 1024)} MiB limit") from None
    except NotRegular:
        raise BaselineError(f"baseline {path!r} is not a regular file") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(f"baseline {path!r} is not valid JSON (line {exc.lineno}): {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise BaselineError(f"cannot read the baseline {path!r}: {why}") from None
    except RecursionError:
        raise BaselineError(f"baseline {path!r} is nested too deeply to be a device-types baseline") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("entries"), list):
        raise BaselineError(f"baseline {path!r} is not a device-types baseline; rewrite it with --write-baseline")
    if data.get("version") != VERSION:
        raise BaselineError(f"baseline {path!r} has version {data.get('version')!r}; this device-types reads "
                            f"version {VERSION} (rewrite it with --write-baseline)")
    entries: list[dict[str, object]] = data["entries"]
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in
                                                  ("path", "function", "code", "anchor")):
            raise BaselineError(f"baseline {path!r}: entry {index + 1} lacks path, function, code or anchor")
    return entries


def apply_baseline(path: str, findings: Sequence[Finding]) -> tuple[list[Finding], list[dict[str, object]]]:
    """(findings not in the baseline, baseline entries that no longer occur)."""
    entries = read_baseline(path)
    budget = Counter(_key(e) for e in entries)
    new: list[Finding] = []
    for finding in findings:
        key = _key(finding)
        if budget[key] > 0:
            budget[key] -= 1
        else:
            new.append(finding)
    fixed: list[dict[str, object]] = []
    for entry in entries:
        key = _key(entry)
        if budget[key] > 0:
            budget[key] -= 1
            fixed.append(entry)
    return new, fixed
