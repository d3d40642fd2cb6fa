"""Where an output goes, checked before the work starts, and written safely.

Every file the tool writes (``-o``, ``--deals-out``, ``--completions``, ``--svg-dir``)
goes through :func:`destination` (checked when the command starts, so a bad path is
found before a long simulation) and :func:`open_text` (the writing).  What happens
depends on what is at the path:

* nothing, or a regular file — the text goes to a temporary file beside it and is
  renamed into place only when complete (never a half-written file); a replaced
  file keeps its permission bits (and, for root, its owner); a new file gets the
  mode a plain ``open()`` would give it;
* a character device or a FIFO (``/dev/null``, a named pipe) — written straight
  through: it is never replaced by a regular file;
* ``-``, ``/dev/stdout``, ``/dev/fd/N`` — the already open descriptor;
* a symbolic link — followed: what it points to is written as above, the link stays;
* a regular file with other hard links — refused (a rename would split the links);
* a folder, a name ending in ``/``, a missing folder, a socket or block device,
  one of the run's input files, or the same place as another output of the run —
  refused with one line naming the path.

A temporary file is removed when the run fails or is interrupted (SIGINT, SIGTERM);
only SIGKILL can leave one (``.NAME.XXXXXXXX.tmp`` beside the target).
"""

from __future__ import annotations

import atexit
import errno
import os
import stat
import sys
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from dataclasses import replace as dataclass_replace
from typing import TextIO

from ..errors import InputError

__all__ = [
    "STDOUT",
    "Destination",
    "OutputClosed",
    "destination",
    "folder_destination",
    "open_stream",
    "open_text",
    "remove_temp_files",
    "write_files",
    "write_text",
]

STDOUT = "-"

_FD_PATHS = ("/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/")
"""Names of already open descriptors: written through the descriptor, never reopened
(reopening would truncate a file the shell opened for appending)."""

_TEMP_STEM = 64
"""Characters of the target's name kept in the temporary file's name, so that a target
whose name is near the file system's limit still gets a temporary file."""

_LIVE_TEMP: set[str] = set()
"""Temporary files being written; removed if the process exits before renaming them."""


@dataclass(frozen=True)
class Destination:
    """A checked output: where and how to write."""

    name: str
    """The path as the user gave it (for messages); ``-`` for standard output."""
    kind: str
    """``stdout``, ``fd`` (an open descriptor), ``file`` (atomic replace) or ``stream``
    (a character device or FIFO, written through)."""
    path: str = ""
    """The real path written: symbolic links followed (``file`` and ``stream``)."""
    fd: int = 1
    """The descriptor (``fd``)."""
    mode: int | None = None
    """Permission bits of the regular file being replaced (None: a new file)."""
    owner: tuple[int, int] | None = None
    """(uid, gid) of the regular file being replaced."""

    @property
    def is_stdout(self) -> bool:
        return self.kind == "stdout" or (self.kind == "fd" and self.fd == 1)


def _fail(name: str, message: str) -> InputError:
    return InputError(f"cannot write: {message}", file=name)


def _os_message(exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return "the file name is too long for the file system"
    if exc.errno == errno.ENOSPC:
        return "no space left on the device"
    if exc.errno == errno.ELOOP:
        return "too many levels of symbolic links"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if exc.errno == errno.EROFS:
        return "the file system is read-only"
    return (exc.strerror or str(exc)).lower()


def _fd_of(name: str) -> int | None:
    if name == "/dev/stdout":
        return 1
    if name == "/dev/stderr":
        return 2
    for prefix in ("/dev/fd/", "/proc/self/fd/"):
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return int(name[len(prefix):])
    return None


def destination(name: str | None, *, inputs: Iterable[str | os.PathLike[str]] = (),
                others: Iterable[Destination] = ()) -> Destination:
    """Check that an output may go to *name* (``None`` or ``-``: standard output).

    *inputs* are the files the run reads (an output may not be one of them); *others*
    the outputs already checked for this run (two outputs may not share a place).
    Raises an InputError naming *name*; nothing is created.
    """
    others = list(others)
    if name is None or name == STDOUT:
        dest = Destination(STDOUT, "stdout")
    elif name == "":
        raise _fail(name, "give a file name")
    else:
        dest = _check_path(name)
    for other in others:
        if _same_place(dest, other):
            raise InputError(f"cannot write: {other.name} is already an output of this run",
                             file=dest.name)
    if dest.kind == "file" and dest.mode is not None:
        for source in inputs:
            if _same_file(dest.path, source):
                raise InputError(f"cannot write: it is an input of this run ({os.fspath(source)}); "
                                 "the report would destroy it", file=name)
    return dest


def _check_path(name: str) -> Destination:
    fd = _fd_of(name)
    if fd is not None:
        try:
            os.fstat(fd)
        except OSError:
            raise _fail(name, f"descriptor {fd} is not open") from None
        return Destination(name, "fd", fd=fd)
    if name.endswith(("/", os.sep)) or (os.altsep and name.endswith(os.altsep)):
        if os.path.isdir(name):
            raise _fail(name, "it is a folder; give a file name")
        raise _fail(name, "it is a folder name (it ends with a slash); give a file name")
    real, info = _real_stat(name)
    if info is None:
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise _fail(name, "the folder does not exist")
        if not os.access(folder, os.W_OK | os.X_OK):
            raise _fail(name, "permission denied (the folder is not writable)")
        return Destination(name, "file", path=real)
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        raise _fail(name, "it is a folder; give a file name")
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        if not os.access(real, os.W_OK):
            raise _fail(name, "permission denied")
        return Destination(name, "stream", path=real)
    if not stat.S_ISREG(mode):
        what = "a socket" if stat.S_ISSOCK(mode) else "a block device" if stat.S_ISBLK(mode) \
            else "not a regular file"
        raise _fail(name, f"it is {what}")
    if info.st_nlink > 1:
        raise _fail(name, f"the file has {info.st_nlink} hard links, and replacing it would "
                          "split them; remove the other links or write to another name")
    folder = os.path.dirname(real) or "."
    if not os.access(real, os.W_OK):
        raise _fail(name, "permission denied (the file is read-only)")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise _fail(name, "permission denied (the folder is not writable)")
    return Destination(name, "file", path=real, mode=stat.S_IMODE(mode),
                       owner=(info.st_uid, info.st_gid))


def _real_stat(name: str) -> tuple[str, os.stat_result | None]:
    """The real path of *name* (links followed) and what is there (None: nothing yet).

    A name too long for the file system, a loop of links or a forbidden folder is an
    error here, before any work."""
    try:
        real = os.path.realpath(name, strict=False)
        return real, os.stat(real)
    except FileNotFoundError:
        return real, None
    except OSError as exc:
        raise _fail(name, _os_message(exc)) from None


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _same_file(a: str | os.PathLike[str], b: str | os.PathLike[str]) -> bool:
    ia = _identity(a)
    return ia is not None and ia == _identity(b)


def _same_place(a: Destination, b: Destination) -> bool:
    if a.is_stdout and b.is_stdout:
        return True
    if a.kind == "fd" and b.kind == "fd":
        return a.fd == b.fd
    if not a.path or not b.path:
        return False
    if a.kind == "stream" or b.kind == "stream":
        return False  # /dev/null may take any number of outputs
    return a.path == b.path or _same_file(a.path, b.path)


# --------------------------------------------------------------------------- writing


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def open_text(dest: Destination) -> Iterator[TextIO]:
    """A text stream (UTF-8, ``\\n`` line ends) to *dest*; the output exists once the block ends.

    For a regular file the text goes to a temporary file that replaces the target only
    when the block ends without an exception; otherwise it is removed.  Write errors
    (a full disk, a closed pipe) become an InputError naming the destination.
    """
    if dest.kind == "file":
        yield from _atomic(dest)
        return
    fh = _open_through(dest)
    try:
        with _write_errors(dest):
            yield fh
            fh.flush()
    finally:
        if fh is not sys.stdout:
            _close_quietly(fh)


SPOOL_MAX = 8 << 20
"""Characters of an output for standard output held in memory; more wait in a temporary file."""


@contextmanager
def open_stream(dest: Destination) -> Iterator[TextIO]:
    """:func:`open_text` for an output written piece by piece while it is made (a replay of
    many deals): for standard output the pieces wait in a temporary file (in memory up to
    :data:`SPOOL_MAX`) until the whole output was made, so that an error half-way prints only
    the error, as for a file; memory stays flat either way."""
    if not dest.is_stdout:
        with open_text(dest) as fh:
            yield fh
        return
    with tempfile.SpooledTemporaryFile(max_size=SPOOL_MAX, mode="w+", encoding="utf-8",
                                       newline="") as spool:
        yield spool  # type: ignore[misc]
        spool.seek(0)
        with open_text(dest) as fh:
            for block in iter(lambda: spool.read(1 << 16), ""):
                fh.write(block)


def _open_through(dest: Destination) -> TextIO:
    """Standard output, a copy of an open descriptor, or a device or FIFO opened for writing."""
    if dest.kind == "stdout":
        return sys.stdout
    try:
        if dest.kind == "fd":
            return os.fdopen(os.dup(dest.fd), "w", encoding="utf-8", newline="")
        return open(dest.path, "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise _fail(dest.name, _os_message(exc)) from None


def _atomic(dest: Destination) -> Iterator[TextIO]:
    fh, tmp = _temp_beside(dest)
    try:
        with fh, _write_errors(dest):
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        _settle_temp(dest, tmp)
        with _write_errors(dest):
            os.replace(tmp, dest.path)
    finally:
        _drop_temp(tmp)


def _temp_beside(dest: Destination) -> tuple[TextIO, str]:
    """An open temporary file in *dest*'s folder, registered for removal on exit."""
    if dest.kind != "file":
        raise _fail(dest.name, "not a regular file")
    folder = os.path.dirname(dest.path) or "."
    stem = os.path.basename(dest.path)[:_TEMP_STEM]
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _fail(dest.name, _os_message(exc)) from None
    _LIVE_TEMP.add(tmp)
    return os.fdopen(fd, "w", encoding="utf-8", newline=""), tmp


def _settle_temp(dest: Destination, tmp: str) -> None:
    """Give the temporary file the replaced file's mode and owner, or the mode a plain
    ``open()`` gives a new file (mkstemp makes it private, 0600)."""
    with _write_errors(dest):
        os.chmod(tmp, dest.mode if dest.mode is not None else _new_file_mode())
    if dest.owner is not None and hasattr(os, "chown"):
        try:
            os.chown(tmp, *dest.owner)
        except OSError:
            pass  # only root may give a file away; the mode is kept anyway


def _drop_temp(tmp: str) -> None:
    _LIVE_TEMP.discard(tmp)
    if os.path.lexists(tmp):
        _unlink_quietly(tmp)


class OutputClosed(Exception):
    """The reader of standard output (or of a pipe) went away: stop quietly."""


@contextmanager
def _write_errors(dest: Destination) -> Iterator[None]:
    try:
        yield
    except BrokenPipeError:
        if dest.kind in ("stdout", "fd"):
            raise OutputClosed from None
        raise _fail(dest.name, "the reader of the pipe went away") from None
    except OSError as exc:
        raise _fail(dest.name if dest.name != STDOUT else "standard output", _os_message(exc)) from None


def _close_quietly(fh: TextIO) -> None:
    try:
        fh.close()
    except OSError:
        pass


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def write_text(dest: Destination, text: str) -> None:
    """Write all of *text* to *dest* (see :func:`open_text`)."""
    with open_text(dest) as fh:
        fh.write(text)


def remove_temp_files() -> None:
    """Remove the temporary files of writes still in progress (on exit or a signal)."""
    for tmp in list(_LIVE_TEMP):
        _LIVE_TEMP.discard(tmp)
        _unlink_quietly(tmp)


atexit.register(remove_temp_files)


# --------------------------------------------------------------------------- folders


def folder_destination(name: str, *, others: Iterable[Destination] = ()) -> Destination:
    """Check that a folder of outputs (``--svg-dir``) may be *name*: an existing folder,
    or a new one whose parent exists.  Nothing is created."""
    if not name:
        raise _fail(name, "give a folder name")
    real, info = _real_stat(name)
    if info is None:
        parent = os.path.dirname(real.rstrip(os.sep)) or "."
        if not os.path.isdir(parent):
            raise _fail(name, "the folder that should hold it does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise _fail(name, "permission denied")
    elif not stat.S_ISDIR(info.st_mode):
        raise _fail(name, "it is not a folder")
    elif not os.access(real, os.W_OK | os.X_OK):
        raise _fail(name, "permission denied (the folder is not writable)")
    dest = Destination(name, "folder", path=real)
    for other in others:
        if other.path and other.path == real:
            raise InputError(f"cannot write: {other.name} is already an output of this run", file=name)
    return dest


def write_files(folder: Destination, files: Iterable[tuple[str, str]]) -> None:
    """Write every ``(file name, text)`` into *folder*, all or nothing.

    Each name is checked first (see :func:`destination`), every text goes to a
    temporary file, and only when all of them are written are they renamed into place;
    a failure removes the temporary files and a folder this call created.
    """
    created = False
    if not os.path.isdir(folder.path):
        try:
            os.mkdir(folder.path)
        except OSError as exc:
            raise _fail(folder.name, _os_message(exc)) from None
        created = True
    written: list[tuple[str, Destination]] = []
    try:
        dests = []
        for file_name, text in files:
            shown = os.path.join(folder.name, file_name)
            dest = destination(os.path.join(folder.path, file_name), others=[d for d, _ in dests])
            dests.append((dataclass_replace(dest, name=shown), text))
        for dest, text in dests:
            tmp = _write_temp(dest, text)
            written.append((tmp, dest))
        for tmp, dest in written:
            try:
                os.replace(tmp, dest.path)
            except OSError as exc:
                raise _fail(dest.name, _os_message(exc)) from None
            _LIVE_TEMP.discard(tmp)
    except BaseException:
        for tmp, _ in written:
            _drop_temp(tmp)
        if created:
            try:
                os.rmdir(folder.path)
            except OSError:
                pass
        raise


def _write_temp(dest: Destination, text: str) -> str:
    """*text* in a temporary file beside *dest*, ready to be renamed; its path."""
    fh, tmp = _temp_beside(dest)
    try:
        with fh, _write_errors(dest):
            fh.write(text)
        _settle_temp(dest, tmp)
    except BaseException:
        _drop_temp(tmp)
        raise
    return tmp
