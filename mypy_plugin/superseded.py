"""One diagnostic per mistake: mypy's own error for a call whose device conflict the
plugin has just reported is withdrawn.

Operands on two devices leave mypy unable to solve the overlay's device TypeVar
(``Cannot infer value of type parameter "_DeviceT" of "bmm"  [misc]``), or make an
argument or operand incompatible only because of its device (``Argument 1 to "add" of
"TensorBase" has incompatible type "Tensor[CUDA]"; expected "Tensor[MPS] | ..."``,
``Unsupported operand types for + ("Tensor[MPS]" and "Tensor[CUDA]")``). Inside a backend
the plugin reports that mistake with its own code and fix; mypy's line for the same call
says the same thing less clearly, so it goes.

mypy records its error before it runs the call's hook (the hook gets the inferred
types), so the plugin's report finds it in the file's error list: only errors of the
call's span whose text shows a tensor-against-tensor conflict are removed, never
another mistake in the same call (an ``int`` passed where a ``str`` goes).
Called only when a device finding is reported: nothing here runs on the hot path.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache

from mypy.errors import ErrorInfo, ErrorWatcher, Errors
from mypy.nodes import Context
from mypy.plugin import CheckerPluginInterface

__all__ = ["withdraw_device_conflicts"]

#: mypy's wordings of a call that fails only because of tensor devices (the overlay's
#: TypeVars are ``_DeviceT``/``_DeviceT2``; the types print as ``Tensor[<marker>]``),
#: compiled on first use (_pattern): this module is imported with the policy, at each mypy
#: run that checks a backend module, and most runs report nothing to withdraw.
_CONFLICT = {
    # the TypeVar unsolved; ``x.numpy()`` on ``Tensor[MPS]`` (the overlay's ``self: TensorBase[CPU]``)
    "misc": r'^(?:Cannot infer value of type parameter "_DeviceT2?" of |Invalid self argument "[^"]*Tensor\[)',
    "arg-type": r'^Argument \d+ to "[^"]+"(?: of "[^"]+")? has incompatible type "[^"]*Tensor\[[^"]*"; expected "[^"]*Tensor\[',
    "operator": r'^Unsupported (?:left )?operand types? for \S+ \("[^"]*Tensor\[[^"]*" and "[^"]*Tensor\[',
    # ``x[i] = y_cpu``: the overlay's ``__setitem__`` value type is the receiver's device
    "assignment": r'^Incompatible types in assignment \(expression has type "[^"]*Tensor\[[^"]*", target has type "[^"]*Tensor\[',
    # every argument a tensor: with any other argument the mismatch may be that one's
    "call-overload": r'^No overload variant of "[^"]+"(?: of "[^"]+")? matches argument types? "[^"]*Tensor\[[^"]*"(?:, "[^"]*Tensor\[[^"]*")*$',
}


class _Superseded:
    """The filter of the watcher at the bottom of mypy's error-watcher stack: drops the
    conflict errors mypy records for a call after the plugin has reported it (overloads
    and operators are resolved after the call's hook has run). Speculative watchers above
    it see errors first. (mypy is compiled: its ErrorWatcher takes a filter function but
    cannot be subclassed.)"""

    def __init__(self) -> None:
        self.spans: dict[str, list[tuple[tuple[int, int], tuple[int, int]]]] = {}
        self._dropped: tuple[str, int] | None = None

    def __call__(self, file: str, info: ErrorInfo) -> bool:
        if info.severity == "note":
            return self._dropped == (file, info.line)
        self._dropped = None
        if _superseded(info, self.spans.get(file, ())):
            self._dropped = (file, info.line)
            return True
        return False


#: Errors object -> its bottom watcher's filter (one mypy run has one Errors).
_FILTERS: dict[int, tuple[Errors, _Superseded]] = {}


def _span(call: Context) -> tuple[tuple[int, int], tuple[int, int]]:
    end_column = call.end_column if call.end_column is not None else 10**9
    return (call.line, call.column), (call.end_line or call.line, end_column)


#: Errors of a return statement that hold a call whose device finding the plugin reported,
#: withdrawn when the statement's span contains the call: ``return x + torch.arange(n)``
#: into ``-> Tensor[MPS]`` (the failed operator's result is Any, so ``warn_return_any``
#: adds ``no-any-return``); ``return x.cpu()`` into ``-> Tensor[MPS]`` (``return-value``
#: of one tensor type against another).
_CONTAINING = {
    "no-any-return": r"^Returning Any from function declared to return ",
    "return-value": r'^Incompatible return value type \(got "[^"]*Tensor\[[^"]*", expected "[^"]*Tensor\[',
}


@cache
def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(source)


def _superseded(info: ErrorInfo, spans: Iterable[tuple[tuple[int, int], tuple[int, int]]]) -> bool:
    if info.code is None or info.severity != "error":
        return False
    containing = _CONTAINING.get(info.code.code)
    if containing is not None:
        if info.end_line < 0 or _pattern(containing).match(info.message) is None:
            return False
        start, end = (info.line, info.column), (info.end_line, info.end_column)
        return any(start <= first and last <= end for first, last in spans)
    pattern = _CONFLICT.get(info.code.code)
    if pattern is None or not any(start <= (info.line, info.column) <= end for start, end in spans):
        return False
    return _pattern(pattern).match(info.message) is not None


def withdraw_device_conflicts(api: CheckerPluginInterface, call: Context, *arguments: Context) -> None:
    """Remove mypy's errors (and their notes) for ``call`` that state a device conflict,
    those recorded already and those mypy records later. ``arguments``: the call's argument
    expressions, where mypy reports some of them (``x[i] = v``'s value lies outside the
    ``x[i]`` that mypy's ``__setitem__`` hook gets as the call)."""
    errors = getattr(getattr(api, "msg", None), "errors", None)
    if not isinstance(errors, Errors):
        return
    spans = [_span(call), *(_span(a) for a in arguments)]
    infos = errors.error_info_map.get(errors.file)
    if infos:
        kept, dropped_line = [], None
        for info in infos:
            if info.severity == "note" and info.line == dropped_line:
                continue  # "Possible overload variants:" and the like, of a withdrawn error
            dropped_line = info.line if _superseded(info, spans) else None
            if dropped_line is None:
                kept.append(info)
        infos[:] = kept
    entry = _FILTERS.get(id(errors))
    if entry is None or entry[0] is not errors:
        entry = _FILTERS[id(errors)] = (errors, _Superseded())
        errors._watchers.insert(0, ErrorWatcher(errors, filter_errors=entry[1]))
    entry[1].spans.setdefault(errors.file, []).extend(spans)
