"""What the ``mahdiao`` commands share: one-line errors, atomic output, ``--set`` parsing,
the report options, the deal file argument and the command line stamped on reports.

Bad input becomes one line on stderr and exit code 2; an output file is
written only when the whole report rendered (temp file + rename).
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Callable, Sequence
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click

from ..deal import Deal
from ..errors import InputError, MahdiaoError
from ..io.dealfile import load_deals
from ..io.resources import data_dir
from ..report.render import LANGS
from ..report.svg import bar_chart, file_name

EXIT_INPUT = 2
EXIT_INTERNAL = 70
F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str) -> None:
    click.echo(f"mahdiao: error: {message}", err=True)
    sys.exit(EXIT_INPUT)


def friendly_errors(fn: F) -> F:
    """Turn our errors into one clear line and exit 2; never print a traceback."""
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except InputError as e:
            _fail(str(e))
        except MahdiaoError as e:
            _fail(str(e))
        except KeyboardInterrupt:
            click.echo("mahdiao: interrupted", err=True)
            sys.exit(130)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as e:  # a bug: still one line, and the traceback only when asked
            if os.environ.get("MAHDIAO_DEBUG") == "1":
                raise
            click.echo(f"mahdiao: internal error: {type(e).__name__}: {e} (a bug — please report "
                       "it with the input file; MAHDIAO_DEBUG=1 shows the traceback)", err=True)
            sys.exit(EXIT_INTERNAL)
    return wrapper  # type: ignore[return-value]


def write_output(text: str, output: str | None) -> None:
    """Print *text*, or write it to *output* atomically (never a half-written file)."""
    if output is None or output == "-":
        click.echo(text, nl=False)
        return
    target = Path(output)
    directory = target.parent if str(target.parent) else Path(".")
    if not directory.is_dir():
        raise InputError("cannot write: the folder does not exist", file=output)
    if target.is_dir():
        raise InputError("cannot write: it is a folder; give a file name", file=output)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror or exc}", file=output) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        # mkstemp makes the file private (0600); give it the mode a plain open() would.
        os.chmod(tmp, _new_file_mode())
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write: {exc.strerror or exc}", file=output) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def parse_settings(values: Sequence[str]) -> dict[str, dict[str, str]]:
    """``--set feng.diao_settlement=winner_only`` → {"feng": {"diao_settlement": ...}}."""
    out: dict[str, dict[str, str]] = {}
    for value in values:
        key, sep, val = value.partition("=")
        rs, dot, opt = key.partition(".")
        if not sep or not dot or not rs or not opt or not val:
            raise InputError(f"--set {value!r}: write RULESET.OPTION=VALUE, "
                             "e.g. feng.diao_settlement=winner_only")
        out.setdefault(rs.strip(), {})[opt.strip()] = val.strip()
    return out


def pick_by_id(entries: Sequence[Any], ids: Sequence[str], what: str, shown: str) -> list[Any]:
    """The entries whose ``id`` is in *ids* (all of them when *ids* is empty); an unknown id
    is an error listing the known ones."""
    if not ids:
        return list(entries)
    known = {e.id for e in entries}
    missing = [i for i in ids if i not in known]
    if missing:
        raise InputError(f"no {what} with id {', '.join(map(repr, missing))} "
                         f"(ids: {', '.join(sorted(known))})", file=shown)
    wanted = set(ids)
    return [e for e in entries if e.id in wanted]


def command_line() -> str:
    """The command as typed, for the stamp at the end of a report."""
    return " ".join(shlex.quote(a) for a in ["mahdiao", *sys.argv[1:]])


def report_options(fn: F) -> F:
    """``--lang`` and ``--template-dir``, shared by every command that renders a report."""
    fn = click.option("--template-dir", type=click.Path(exists=True, file_okay=False),
                      help="Use templates (and labels.yaml) from this folder first.")(fn)
    return click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True,
                        help="Labels: hanzi terms with English (en), or all Chinese.")(fn)


def load_deal_file(file: str | None, deal_ids: Sequence[str]) -> tuple[list[Deal], str]:
    """The deals of FILE (the bundled examples without one), only *deal_ids* if given."""
    if file is None:
        path, shown = data_dir("examples") / "examples.yaml", "examples/examples.yaml"
    else:
        path, shown = Path(file), file
    return pick_by_id(load_deals(str(path), display_name=shown), deal_ids, "deal", shown), shown


def write_svgs(folder: str, charts: dict[str, dict[str, Any]], title: str) -> None:
    """Each chart as a standalone DIR/<name>.svg, written atomically like every output."""
    target = Path(folder)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create the folder: {exc.strerror or exc}", file=folder) from None
    for name, spec in charts.items():
        write_output(bar_chart(spec, title=title, standalone=True),
                     str(target / f"{file_name(name)}.svg"))


def check_settings_targets(settings: Sequence[str], chosen: Sequence[Any]) -> None:
    """Every ``--set`` must name a ruleset of this run (a typo would otherwise be ignored)."""
    ids = {rs.id for rs in chosen}
    for rs_id in parse_settings(settings):
        if rs_id not in ids:
            raise InputError(f"--set names ruleset {rs_id!r}, which is not in this run "
                             f"(rulesets: {', '.join(sorted(ids))})")
