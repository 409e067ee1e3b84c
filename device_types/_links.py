"""Where a code's documentation is: the one place that makes the links the product emits
(the language server's ``codeDescription``, SARIF's ``helpUri`` and ``informationUri``,
``device-types explain``).

The default is the installed package's own copy of ``docs/`` (shipped in the wheel as
``device_types/docs/``; in a source checkout, the checkout's ``docs/``), as a ``file:`` URL:
it exists offline, for the installed version. A team that publishes the pages sets a base
URL instead, with ``docs_url`` in ``[tool.device_types]`` or the ``DEVICE_TYPES_DOCS_URL``
environment variable (which wins, so one machine can point elsewhere than the project);
a link is then ``<base>/errors.md#<code>`` (docs/errors.md, "Links").
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["ENV", "docs_dir", "docs_base", "code_url", "page_url"]

#: The environment variable that overrides the configured base URL.
ENV: Final = "DEVICE_TYPES_DOCS_URL"
#: The page that holds one section per code; its headings are the code names.
ERRORS_PAGE: Final = "errors.md"
#: The tool's page (SARIF ``informationUri``): installing and using it.
TOOL_PAGE: Final = "installation.md"


def docs_dir() -> Path:
    """The installed copy of the docs (wheel: ``device_types/docs``), else the checkout's."""
    from pathlib import Path  # here, not above: a text report makes no link, and pathlib is 3 ms to import

    here = Path(__file__).resolve().parent
    shipped = here / "docs"
    if (shipped / ERRORS_PAGE).is_file():
        return shipped
    return here.parent / "docs"


def docs_base(configured: str | None = None) -> str:
    """The base URL links are made from, without a trailing slash."""
    chosen = os.environ.get(ENV, "").strip() or (configured or "").strip()
    if chosen:
        return chosen.rstrip("/")
    return docs_dir().as_uri()


def page_url(page: str, anchor: str | None = None, configured: str | None = None) -> str:
    url = f"{docs_base(configured)}/{page}"
    return f"{url}#{anchor}" if anchor else url


def code_url(code: str, configured: str | None = None) -> str:
    """The code's section of errors.md (the section's heading is the code, so its anchor is too)."""
    return page_url(ERRORS_PAGE, code, configured)
