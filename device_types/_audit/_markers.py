"""Rule-3 markers in one Python source: real ``#`` comments only, and what each one guards.

A marker is a comment that reads like ``# TODO: re-enable native kernel when <platform>
fixes <issue>``. ``tokenize`` finds comments, so the phrase inside a docstring or a string
literal is never a marker. ``ast`` then tells, for each marker, which functions it sits in
or above (to find the op) and whether a guard keeps the native kernel reachable.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass
from typing import Final

#: Anything that claims to be a rule-3 marker; a claim that does not parse is reported as
#: malformed rather than ignored, so a typo cannot hide a preserved kernel.
_CLAIMS_MARKER: Final = re.compile(
    r"\bTODO\b.*\bre-?enable\b.*\bnative\b|\bre-?enable\s+(?:the\s+)?native\s+kernel", re.IGNORECASE
)
_MARKER: Final = re.compile(
    r"""^\#+\s*TODO\b\s*(?:\([^)]*\))?\s*[:\-]?\s*
        re-?enable\s+(?:the\s+)?native\s+kernels?\s+
        when\s+(?P<platform>.*?)\s*\bfix(?:es|ed)?\b\s*(?P<issue>.*?)\s*$""",
    re.IGNORECASE | re.VERBOSE,
)
#: The template's meaning as teams write it: "re-enable native <what> when <platform> fixes
#: <issue>", where <what> may be "kernel", a kernel name ("native aclnnAvgPool2d") or a
#: path ("float32 native path"), and the issue may end in punctuation.
_READABLE: Final = re.compile(
    r"""^\#+\s*TODO\b\s*(?:\([^)]*\))?\s*[:\-]?\s*
        re-?enable\s+(?P<what>[^\n]*?\bnative\b[^\n]*?)\s+
        when\s+(?P<platform>.*?)\s*\b(?:fix(?:es|ed)?|resolves|resolved)\b\s*(?P<issue>.*?)[\s.;,!]*$""",
    re.IGNORECASE | re.VERBOSE,
)
_PLACEHOLDER: Final = re.compile(r"^<[^>]*>$")
#: A comment line that carries on the one above: indented after the '#', or starting
#: with a word that joins it to the previous sentence.
_CONTINUES: Final = re.compile(
    r"^\#\s{2,}\S|^\#\s*(?:and|or|once|when|but|which|on|for|in|until|after|see|because|then)\b"
)
#: Bytes pre-filter: a file without this cannot hold a marker, so it is never tokenized.
_MAY_HOLD_MARKER: Final = re.compile(rb"re-?enable", re.IGNORECASE)

@dataclass(frozen=True)
class Marker:
    line: int
    #: The comment as written, without surrounding white space.
    comment: str
    #: ``<platform>`` and ``<issue>``; None when the marker does not name one.
    platform: str | None
    issue: str | None
    #: Whether the comment reads exactly as the template ("... native kernel when ... fixes ...").
    follows_form: bool
    #: Functions that can name the op: the guarded ``def`` (marker directly above it) first,
    #: then the enclosing ``def``s, innermost first.
    functions: tuple[str, ...]
    #: How the native kernel is guarded ("if", "try", "def", "flag"), None when unguarded.
    guard: str | None
    #: The marker's text with its continuation lines joined (what matching reads).
    text: str = ""
    #: What is re-enabled when it is not just "kernel": "aclnnAvgPool2d", "float32 native path".
    what: str | None = None
    #: Column of the '#' (for rewriting the line).
    column: int = 0
    #: Whether it has the template's shape ("re-enable native ... when ... fix ..."), even
    #: with a placeholder or nothing where the platform or issue belongs.
    shaped: bool = False

    @property
    def readable(self) -> bool:
        """Names a platform and an issue, in the template's words or a variant of them."""
        return self.platform is not None and self.issue is not None


def may_hold_marker(data: bytes) -> bool:
    return _MAY_HOLD_MARKER.search(data) is not None


def find_markers(source: str) -> list[Marker]:
    """Markers in ``source``; raises SyntaxError (rarely tokenize.TokenError) on broken Python."""
    tree = ast.parse(source)  # first: its SyntaxError says more than tokenize's errors
    comments = _comments(source)
    claims = [(i, c) for i, c in enumerate(comments) if _CLAIMS_MARKER.search(c.text)]
    if not claims:
        return []
    context = _Context(tree)
    markers = []
    for index, comment in claims:
        text = comment.text
        platform, issue, what = _parse(text)
        if comment.own_line:
            # "... when CANN 8.1 fixes" or "... fixes 161002 on 910B" continued below.
            text = _with_continuation(comments, index, complete=issue is not None)
            if issue is None:
                platform, issue, what = _parse(text)
        markers.append(
            Marker(
                line=comment.line,
                comment=comment.text,
                platform=platform,
                issue=issue,
                follows_form=_MARKER.match(text) is not None,
                functions=context.functions(comment),
                guard=context.guard(comment),
                text=text,
                what=what,
                column=comment.column,
                shaped=_MARKER.match(text) is not None or _READABLE.match(text) is not None,
            )
        )
    return markers


@dataclass(frozen=True)
class _Comment:
    line: int
    column: int
    text: str
    own_line: bool


def _comments(source: str) -> list[_Comment]:
    found = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            line, column = token.start
            found.append(_Comment(line, column, token.string.strip(), not token.line[:column].strip()))
    return found


def _parse(text: str) -> tuple[str | None, str | None, str | None]:
    """(platform, issue, what) of a marker; None where it names none."""
    match = _MARKER.match(text) or _READABLE.match(text)
    if match is None:
        return None, None, None
    platform, issue = match.group("platform").strip(), match.group("issue").strip()
    what = match.groupdict().get("what")
    if what is not None:
        what = " ".join(w for w in what.split() if w.lower() not in {"the", "native", "kernel", "kernels"}) or None
    return (
        platform if platform and not _PLACEHOLDER.match(platform) else None,
        issue if issue and not _PLACEHOLDER.match(issue) else None,
        what,
    )


def _with_continuation(comments: list[_Comment], index: int, complete: bool = False) -> str:
    """The marker and the comment lines right below it that carry it on; once the marker
    names its issue, only lines that read as a continuation (indented, or opening with a
    joining word) count, so an unrelated comment below is not swallowed."""
    parts = [comments[index].text]
    previous = comments[index]
    for comment in comments[index + 1 :]:
        if not comment.own_line or comment.line != previous.line + 1 or _CLAIMS_MARKER.search(comment.text):
            break
        if comment.column != previous.column or (complete and not _CONTINUES.match(comment.text)):
            break
        parts.append(comment.text.lstrip("#").strip())
        previous = comment
    return " ".join(parts)


class _Context:
    """Line -> enclosing functions and guard, from the module's syntax tree."""

    def __init__(self, tree: ast.Module) -> None:
        self.statements = [n for n in ast.walk(tree) if isinstance(n, ast.stmt)]
        self.functions_: list[ast.stmt] = [
            n for n in self.statements if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]

    def functions(self, comment: _Comment) -> tuple[str, ...]:
        guarded = self._guarded_statement(comment)
        names = []
        if isinstance(guarded, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.append(guarded.name)
        for function in self._enclosing(comment.line, self.functions_):
            if function is not guarded and isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.append(function.name)
        return tuple(names)

    def guard(self, comment: _Comment) -> str | None:
        kind = _guard_kind(self._guarded_statement(comment))
        if kind is not None:
            return kind
        # The marker sits inside the guarded branch (``if USE_NATIVE:`` then the marker).
        functions = self._enclosing(comment.line, self.functions_)
        innermost_function = functions[0] if functions else None
        for statement in self._enclosing(comment.line, self.statements):
            if statement is innermost_function:
                break
            if isinstance(statement, (ast.If, ast.Try)):
                return _guard_kind(statement)
        return None

    def _guarded_statement(self, comment: _Comment) -> ast.stmt | None:
        """The statement a marker is about: the one it trails, or the next one below it."""
        line = comment.line
        for function in self.functions_:
            # Between the decorators and the ``def`` line: the decorated function.
            if _start(function) < line < function.lineno:
                return function
        if not comment.own_line:
            on_line = [s for s in self.statements if _start(s) == line]
            if on_line:
                return max(on_line, key=lambda s: _end(s) - _start(s))
            return None
        below = [s for s in self.statements if _start(s) > line]
        if not below:
            return None
        following = min(below, key=lambda s: (_start(s), _start(s) - _end(s)))
        # A dedent means the marker was the last thing in its block: it guards nothing below.
        if following.col_offset < comment.column:
            return None
        return following

    @staticmethod
    def _enclosing(line: int, nodes: list[ast.stmt]) -> list[ast.stmt]:
        """Nodes whose span holds ``line`` (after their first line), innermost first."""
        holding = [n for n in nodes if _start(n) < line <= _end(n)]
        return sorted(holding, key=_start, reverse=True)


def _guard_kind(statement: ast.stmt | None) -> str | None:
    if isinstance(statement, ast.If):
        return "if"
    if isinstance(statement, ast.Try):
        return "try"
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return "def"
    value = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign)) else None
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return "flag"  # USE_NATIVE_BADDBMM = False: the switch that guards the kernel
    return None


def _start(node: ast.stmt) -> int:
    decorators: list[ast.expr] = getattr(node, "decorator_list", None) or []
    return min([node.lineno, *(d.lineno for d in decorators)])


def _end(node: ast.stmt) -> int:
    return node.end_lineno or node.lineno
