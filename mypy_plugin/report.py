"""Report an error once, even from inside mypy's speculative checks.

mypy runs a call's return-type hook once per overload item it tries, each time inside an
``ErrorWatcher`` that filters errors and treats *any* new error as "this item does not
match". A plugin error reported there would both vanish and knock the overload out
(``.to("cpu")`` would become "No overload variant matches"). Our errors concern the call
site (receiver, arguments), never the overload item, so they are reported past the
watchers, and at most once per (file, line, column, code).
"""

from __future__ import annotations

from mypy.errorcodes import ErrorCode
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface


def fail_once(api: CheckerPluginInterface, message: str, context: Context, code: ErrorCode) -> None:
    errors = api.msg.errors
    line, column = context.line, context.column
    for info in errors.error_info_map.get(errors.file, ()):
        if info.line == line and info.column == column and info.code is code:
            return
    watchers = errors._watchers
    errors._watchers = []
    try:
        api.fail(message, context, code=code)
    finally:
        errors._watchers = watchers


def code_enabled(api: object, code: ErrorCode) -> bool:
    """Whether ``code`` is on for the module being checked (its per-module options), so that
    an opt-in check costs nothing where it is off."""
    options = getattr(api, "options", None)
    if options is None:
        return code.default_enabled
    if code in options.disabled_error_codes:
        return False
    if code in options.enabled_error_codes:
        return True
    return code.default_enabled
