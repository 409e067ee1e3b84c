"""A small generator of pathological Python: depth, width, size, encodings and line breaks.

Each function returns the bytes of one module; the tests write them into a backend package
and state what the check must say. Nothing here is random: a failing case reproduces."""

from __future__ import annotations


def elif_chain(branches: int, name: str = "chain") -> bytes:
    """One function whose ``if``/``elif`` chain is ``branches`` nested ``If`` nodes deep."""
    body = "".join(f"    elif x == {i}:\n        return {i}\n" for i in range(branches))
    return f"def {name}(x):\n    if x == -1:\n        return -1\n{body}".encode()


def concatenation(terms: int, name: str = "concat") -> bytes:
    """One function returning a ``+`` chain of ``terms`` strings: ``terms`` nested ``BinOp``s."""
    return f"def {name}(x):\n    return " .encode() + " + ".join(f'"s{i}"' for i in range(terms)).encode() + b"\n"


def nested_calls(depth: int, name: str = "nested") -> bytes:
    return f"def {name}(x):\n    return {'f(' * depth}x{')' * depth}\n".encode()


def wide(functions: int) -> bytes:
    """Many small functions: width, not depth."""
    return "".join(f"def op_{i}(a):\n    return a.abs()\n\n\n" for i in range(functions)).encode()


FALLBACK = (
    "import numpy as np\n"
    "from ..common.convert import from_numpy, to_numpy\n\n\n"
    "def relu_host(a):\n"
    "    return from_numpy(np.maximum(to_numpy(a), 0), a.dtype, a.device){ignore}\n"
)


def with_line_breaks(separator: str, ignore: bool = False) -> bytes:
    """A module with a fallback, whose lines end with ``separator`` (``\\n``, ``\\r\\n``,
    ``\\r``), and a string holding the characters ``str.splitlines`` also splits on (U+2028,
    U+0085, form feed, U+001C) before it: line numbers must not move."""
    text = '"""Odd characters: \u2028 \x85 \x0c \x1c in a docstring."""\n' + FALLBACK.format(
        ignore="  # device-types: ignore[device-readback]" if ignore else "")
    return text.replace("\n", separator).encode("utf-8")


def encoded(encoding: str) -> bytes:
    """The fallback module in ``encoding``: ``latin-1`` with its PEP 263 cookie, or ``utf-8-sig`` (a BOM)."""
    text = FALLBACK.format(ignore="  # caf\xe9")
    if encoding == "latin-1":
        return ("# -*- coding: latin-1 -*-\n" + text).encode("latin-1")
    return text.encode(encoding)
