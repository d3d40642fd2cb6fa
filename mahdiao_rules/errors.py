"""Errors that the CLI turns into one clear line and exit code 2.

Every user-facing failure is an :class:`InputError` naming the file, the place
inside it (line, key path, trick) and the problem; nothing else escapes as a
traceback.
"""

from __future__ import annotations


class MahdiaoError(Exception):
    """Base class for every error this package raises on purpose."""


class InputError(MahdiaoError):
    """Bad input: a file, a place inside it, and what is wrong there."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None,
                 place: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.place = place

    def located(self, *, file: str | None = None, line: int | None = None,
                place: str | None = None) -> InputError:
        """Return a copy with missing location parts filled in."""
        return InputError(
            self.message,
            file=self.file or file,
            line=self.line if self.line is not None else line,
            place=self.place or place,
        )

    def __str__(self) -> str:
        where = ""
        if self.file:
            where = self.file
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        if self.place:
            where += f"{self.place}: "
        return where + self.message
