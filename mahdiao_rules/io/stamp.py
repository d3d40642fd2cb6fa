"""What every output says about how it was made: the contract version and the reproducibility stamp.

The report layer wraps every JSON document in an envelope (report/contract.py); deal files
written by the tool (``deal``, ``simulate --deals-out``, ``reconstruct --completions``,
``code --decode``) carry the same stamp at their top (JSON Lines: in a header line).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from typing import Any

from .. import __version__

__all__ = ["SCHEMA_VERSION", "TOOL", "input_info", "make_stamp"]

SCHEMA_VERSION = "1.0"
"""Version of the output contracts (docs/output-formats.md): the major number changes when a
field is renamed, removed or changes meaning, the minor number when fields are added."""

TOOL = {"name": "mahdiao-rules", "version": __version__}


def input_info(path: str | os.PathLike[str] | None, shown: str | None = None) -> dict[str, Any]:
    """An input of a run for its stamp: the path as given and the SHA-256 of its bytes
    (None when it cannot be read again, such as standard input)."""
    name = shown if shown is not None else os.fspath(path) if path is not None else ""
    digest = None
    if path is not None:
        try:
            h = hashlib.sha256()
            with open(path, "rb") as fh:
                for block in iter(lambda: fh.read(1 << 20), b""):
                    h.update(block)
            digest = h.hexdigest()
        except OSError:
            digest = None
    return {"path": name, "sha256": digest}


def make_stamp(command: str, *, rulesets: Sequence[dict[str, Any]] = (),
               inputs: Sequence[dict[str, Any]] = (), seed: str | None = None) -> dict[str, Any]:
    """The reproducibility stamp every output carries: tool and version, the command line,
    the rulesets (id, content hash, options), the inputs (path, SHA-256) and the seed."""
    return {"tool": dict(TOOL), "command": command, "rulesets": list(rulesets), "inputs": list(inputs),
            "seed": seed}
