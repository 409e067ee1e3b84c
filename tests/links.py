"""Following a link the product emits, offline: a ``file:`` URL to an existing page, and its
``#anchor`` to a heading of that page (as GitHub and editors' markdown previews slug them)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse


def slug(heading: str) -> str:
    """GitHub's anchor of a markdown heading: lower case, punctuation dropped, spaces -> '-'."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    fenced = False
    found = set()
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and (match := re.match(r"^#{1,6} (.+)$", line)):
            found.add(slug(match[1]))
    return found


def follow(url: str) -> Path:
    """The page ``url`` names; fails unless it exists and holds the anchor."""
    parsed = urlparse(url)
    assert parsed.scheme == "file", f"{url}: not a file: URL (offline, a link must name a local page)"
    page = Path(unquote(parsed.path))
    assert page.is_file(), f"{url}: no such page"
    if parsed.fragment:
        assert parsed.fragment in anchors(page), f"{url}: {page.name} has no heading with anchor #{parsed.fragment}"
    return page
