"""Find the bundled rulesets, templates, schemas and example deals.

A wheel carries the top-level ``rulesets/``, ``templates/`` and ``examples/``
folders inside the package as ``_data/…`` (pyproject's force-include); a source
checkout or an editable install finds them next to the package.  Nothing is
looked up relative to the current directory.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]
"""The ``mahdiao_rules`` folder (this module lives in its ``io/``)."""
SCHEMA_DIR = Path(__file__).resolve().parent / "schemas"


@cache
def data_dir(name: str) -> Path:
    """The folder holding bundled data *name* (``rulesets``, ``templates``, ``examples``)."""
    for candidate in (PACKAGE_DIR / "_data" / name, PACKAGE_DIR.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"bundled data folder {name!r} is missing from the installation")


def example(name: str) -> tuple[Path, str]:
    """The bundled example file *name*, and the name messages and stamps show for it
    (``examples/<name>``, where a source checkout has it)."""
    return data_dir("examples") / name, f"examples/{name}"


def schema_path(name: str) -> Path:
    """The JSON Schema file ``io/schemas/<name>.schema.json`` shipped inside the package."""
    return SCHEMA_DIR / f"{name}.schema.json"
