"""Running the ``mahdiao`` CLI in-process from tests, and reading its one error line."""

from __future__ import annotations

from click.testing import CliRunner, Result

from mahdiao_rules.cli import main

KEEP = "an earlier report that a failed run must leave alone\n"


def _runner() -> CliRunner:
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click 8.1
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stdout and stderr apart by itself


def invoke(*args: str) -> Result:
    """Run ``mahdiao ARGS`` in-process; an exception escaping the CLI fails the test."""
    return _runner().invoke(main, list(args), catch_exceptions=False)


def error_line(result: Result) -> str:
    """The one error line of a failed run (exit 2, nothing on stdout, no traceback)."""
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exit_code == 2, result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and result.stderr.endswith("\n"), result.stderr
    assert lines[0].startswith("mahdiao: error: ")
    return lines[0]
