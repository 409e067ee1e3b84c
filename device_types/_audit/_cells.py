"""What one table cell says: op names with their qualifiers, kernel names, error codes.

Cells are read as teams write them: ```layer_norm` (float32)`` is layer_norm with a
qualifier, ```lt` / `gt` (int64 indices)`` is two ops, ``aten::index_put.default`` is
index_put, and ``-``, ``—`` or ``n/a`` is an empty cell. Op names themselves are never
listed here: any identifier in the Op column is an op (the semantics table describes what
ops do, not which ones a team may document).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Final

#: Cells that say nothing (compared after ``plain`` and lower-casing).
EMPTY_CELLS: Final = frozenset({"", "-", "--", "---", "\u2013", "\u2014", "n/a", "na", "tbd", "?", "none"})

_IDENTIFIER: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_LINK: Final = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_BACKTICKED: Final = re.compile(r"`([^`]+)`")
#: A markdown backslash escape (``layer\_norm``); ``\|`` is already a pipe after cell splitting.
_ESCAPE: Final = re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])")
_PARENTHESISED: Final = re.compile(r"\(([^()]*)\)")
#: Between several ops in one cell.
_OP_SEPARATOR: Final = re.compile(r"\s*(?:/|,|&|;|<br\s*/?>|\band\b|\bor\b)\s*", re.IGNORECASE)
#: A trailing note after the op: "`std` — all-reduce only", "`topk`: see #12".
_NOTE: Final = re.compile(r"\s+(?:\u2014|\u2013|--|-)\s+.*$|\s*:\s+.*$")
#: A kernel identifier written bare: lower-to-upper camel case (aclnnAvgPool2d, cudnnConvFwd).
_CAMEL: Final = re.compile(r"[a-z0-9][A-Z]")
_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: An error code: four or more digits, maybe after up to three capitals (161002, EZ9999),
#: not part of a version or a word.
_ERROR_CODE: Final = re.compile(r"(?<![\w.])[A-Z]{0,3}\d{4,}(?![\w]|\.\d)")


def plain(cell: str) -> str:
    """A cell without markdown presentation: links become their text, escapes their
    character, and emphasis and code marks around the value go."""
    text = _ESCAPE.sub(r"\1", _LINK.sub(r"\1", cell))
    return text.strip().strip("*").strip().strip("`").strip()


def is_empty(cell: str) -> bool:
    return plain(cell).lower() in EMPTY_CELLS


def normalise_op(text: str) -> str | None:
    """The bare op name in a cell or backticked token, or None when it is not one op."""
    name = plain(text)
    if name.endswith("()"):
        name = name[:-2]
    aten = re.fullmatch(r"(?:torch\.ops\.)?aten(?:\.|::)([A-Za-z_]\w*)(?:\.\w+)?", name)
    if aten:
        return aten.group(1)  # the overload (".default", ".Tensor") names no other kernel
    parts = name.split(".")
    return parts[-1] if all(_IDENTIFIER.match(p) for p in parts) else None


def read_op_cell(cell: str) -> tuple[tuple[str, ...], str] | None:
    """(ops, qualifier) of an Op cell, or None when it names no op.

    Backticked names are the ops when there are any (the rest is the qualifier); otherwise
    the text outside parentheses is split at '/', ',', '&' and 'and'.
    """
    text = _ESCAPE.sub(r"\1", _LINK.sub(r"\1", cell)).strip().strip("*").strip()
    text = re.sub(r"<br\s*/?>", " / ", text, flags=re.IGNORECASE)  # a line break inside a cell
    ticked = _BACKTICKED.findall(text)
    if ticked:
        ops = [normalise_op(t) for t in ticked]
        if all(ops):
            rest = _BACKTICKED.sub(" ", text)
            rest = _OP_SEPARATOR.sub(" ", " ".join(_PARENTHESISED.findall(rest)) or rest)
            return _unique(o for o in ops if o), " ".join(rest.split()).strip(" -:\u2013\u2014")
        return None
    qualifiers = _PARENTHESISED.findall(text)
    bare = _NOTE.sub("", _PARENTHESISED.sub(" ", text)).strip()
    parts = [p for p in _OP_SEPARATOR.split(bare) if p] if bare else []
    found = [normalise_op(p) for p in parts]
    if not parts or not all(found):
        return None
    return _unique(o for o in found if o), " ".join(" ".join(qualifiers).split())


def kernel_names(cell: str, header_says_kernel: bool) -> tuple[str, ...]:
    """Kernel identifiers in a cell: backticked identifiers, camel-case words, and under a
    header that says "kernel" any identifier with an upper-case letter or a digit."""
    text = plain(cell) if "`" not in cell else cell
    names = [t.strip() for t in _BACKTICKED.findall(text) if _IDENTIFIER.match(t.strip())]
    for word in _WORD.findall(_BACKTICKED.sub(" ", text)):
        if _CAMEL.search(word) or (header_says_kernel and len(word) > 2 and re.search(r"[A-Z0-9]", word)):
            names.append(word)
    return _unique(names)


def camel_words(name: str) -> str:
    """aclnnAvgPool2d -> avg_pool2d: the op a vendor kernel name spells, without its
    lower-case vendor prefix."""
    hump = re.search(r"[A-Z]", name)
    body = name[hump.start():] if hump else name
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", body).lower()


def error_codes(text: str) -> tuple[str, ...]:
    return _unique(_ERROR_CODE.findall(text))


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))
