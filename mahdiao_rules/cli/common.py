"""What the ``mahdiao`` commands share: one-line errors, signals, checked and atomic output,
``--set`` parsing, the report options, the deal file argument and the command line stamped
on reports.

Bad input becomes one line on stderr and exit code 2; an output path is checked when the
command starts, and an output file is written only when the whole report rendered (temp
file + rename, see :mod:`mahdiao_rules.io.output`).
"""

from __future__ import annotations

import itertools
import os
import shlex
import signal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar, cast

import click

from ..deal import Deal
from ..errors import InputError, MahdiaoError
from ..io.dealfile import iter_deal_stream, iter_deals
from ..io.jsonstream import Prefixed, jsonl_kind, looks_like_json
from ..io.output import (
    Destination,
    OutputClosed,
    destination,
    folder_destination,
    open_text,
    remove_temp_files,
    write_files,
)
from ..io.resources import example
from ..io.sittingfile import json_lines_document
from ..io.textcheck import control_problem, printable
from ..io.yamlsafe import Document, current_limits, load_file, load_text
from ..report.render import LANGS
from ..report.svg import bar_chart, chart_file_names
from ..ruleset import resolve_rulesets
from . import complete

EXIT_INPUT = 2
EXIT_INTERNAL = 70
EXIT_PIPE = 141
"""What a shell reports for a program ended by SIGPIPE: its reader went away."""
F = TypeVar("F", bound=Callable[..., Any])


def _fail(message: str) -> None:
    # File names and values typed on the command line may hold control characters:
    # they are shown as escapes, never sent raw to the terminal (io/textcheck.py).
    click.echo(f"mahdiao: error: {printable(message)}", err=True)
    sys.exit(EXIT_INPUT)


class Terminated(BaseException):
    """SIGTERM (or SIGHUP) arrived: unwind, so that temporary files are removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum: int, _frame: Any) -> None:
    raise Terminated(signum)


@contextmanager
def _signals_unwind() -> Iterator[None]:
    """While a command runs, SIGTERM and SIGHUP unwind the stack like Ctrl-C does (the
    default would end the process on the spot and leave a temporary file behind)."""
    names = [n for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n)]
    old: dict[int, Any] = {}
    try:
        for name in names:
            num = getattr(signal, name)
            old[num] = signal.signal(num, _on_signal)
    except ValueError:  # not the main thread: leave the handlers alone
        pass
    try:
        yield
    finally:
        for num, handler in old.items():
            signal.signal(num, handler)


def _stdout_gone() -> None:
    """The reader of standard output went away (``mahdiao replay | head``): stop quietly,
    and keep Python from complaining when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
    sys.exit(EXIT_PIPE)


def friendly_errors(fn: F) -> F:
    """Turn our errors into one clear line and exit 2; never print a traceback.

    Ctrl-C prints one line and exits 130; SIGTERM/SIGHUP exit quietly with 128 + the
    signal; either way no temporary file is left behind.
    """
    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with _signals_unwind():
                return fn(*args, **kwargs)
        except InputError as e:
            _fail(str(e))
        except MahdiaoError as e:
            _fail(str(e))
        except (OutputClosed, BrokenPipeError):  # BrokenPipeError: a command that wrote with click.echo
            _stdout_gone()
        except KeyboardInterrupt:
            remove_temp_files()
            click.echo("mahdiao: interrupted", err=True)
            sys.exit(130)
        except Terminated as e:
            remove_temp_files()
            sys.exit(128 + e.signum)
        except (click.exceptions.Exit, click.ClickException, SystemExit):
            raise
        except Exception as e:  # a bug: still one line, and the traceback only when asked
            if os.environ.get("MAHDIAO_DEBUG") == "1":
                raise
            click.echo(f"mahdiao: internal error: {type(e).__name__}: {printable(str(e))} (a bug — "
                       "please report it with the input file; MAHDIAO_DEBUG=1 shows the traceback)",
                       err=True)
            sys.exit(EXIT_INTERNAL)
    return wrapper  # type: ignore[return-value]


def output_place(output: str | None, *, inputs: Iterable[str | os.PathLike[str] | None] = (),
                 others: Iterable[Destination] = ()) -> Destination:
    """Check an output path when the command starts (see :mod:`mahdiao_rules.io.output`)."""
    return destination(output, inputs=[i for i in inputs if i], others=others)


class RunOutput:
    """A command's output, checked twice: when the command starts, so that a bad ``-o`` fails
    at once rather than after the rulesets compiled (~0.65 s), and again by :meth:`rulesets`
    once they are known, so that the output replaces none of the files they were read from."""

    def __init__(self, output: str | None, inputs: Iterable[str | os.PathLike[str] | None] = ()) -> None:
        self.output = output
        self.inputs: list[str | os.PathLike[str]] = [i for i in inputs if i and i != STDIN]
        """The files the command reads (the rulesets' too, after :meth:`rulesets`)."""
        self.dest = output_place(output, inputs=self.inputs)

    def rulesets(self, ids: Sequence[str], settings: Sequence[str], *,
                 default: str = "feng") -> list[Any]:
        """The rulesets of ``-r`` (*default* without one) with the ``--set`` readings, each
        ``--set`` naming one of them; the output checked again against their files."""
        parsed = parse_settings(settings)
        chosen = resolve_rulesets(list(ids) or [default], parsed)
        _check_targets(parsed, chosen)
        self.inputs = [*self.inputs, *ruleset_files(chosen)]
        self.dest = output_place(self.output, inputs=self.inputs)
        return chosen


def ruleset_files(rulesets: Iterable[Any]) -> list[str]:
    """Every file the compiled *rulesets* were read from (an output must not replace one)."""
    return [f for rs in rulesets for f in rs.input_files]


def write_output(text: str, output: str | Destination | None) -> None:
    """Print *text*, or write it to *output*: atomically for a regular file (never a
    half-written file), straight through for a device or FIFO."""
    dest = output if isinstance(output, Destination) else destination(output)
    with open_text(dest) as fh:
        if dest.kind == "stdout":
            click.echo(text, nl=False, file=fh)
        else:
            fh.write(text)


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


_ARGS: list[str] | None = None
"""The arguments ``mahdiao`` was called with (also when called in-process, as tests and
notebooks do, where ``sys.argv`` is someone else's)."""


class Main(click.Group):
    """The ``mahdiao`` group: remembers its arguments for the stamp."""

    def main(self, args: Sequence[str] | None = None, *rest: Any, **kwargs: Any) -> Any:
        global _ARGS
        _ARGS = list(sys.argv[1:] if args is None else args)
        try:
            return super().main(args, *rest, **kwargs)
        finally:
            _ARGS = None


def command_line() -> str:
    """The command as typed, for the stamp every output carries (control characters written
    as escapes)."""
    args = _ARGS if _ARGS is not None else sys.argv[1:]
    return printable(" ".join(shlex.quote(a) for a in ["mahdiao", *args]))


def check_seed(seed: str) -> str:
    """A seed becomes deal ids (``SEED-1``) in files the tool must read back: it may not
    hold a control character."""
    problem = control_problem(seed)
    if problem is not None:
        raise InputError(f"--seed: {problem}")
    return seed


def stamp_line(stamp: dict[str, Any]) -> str:
    """The stamp as one comment line, for the plain listings (rulesets, validate, code)."""
    parts = [f"{stamp['tool']['name']} {stamp['tool']['version']}"]
    parts += [f"{r['id']}@{r['hash']}" for r in stamp.get("rulesets", [])]
    parts += [f"{i['path']} sha256:{i['sha256']}" if i.get("sha256") else i["path"]
              for i in stamp.get("inputs", [])]
    if stamp.get("seed") is not None:
        parts.append(f"seed {stamp['seed']}")
    parts.append(stamp["command"])
    return "# " + " · ".join(parts)


def stamp_block(stamp: dict[str, Any]) -> str:
    """The stamp as the closing lines of a plain-text report."""
    lines = [f"reproduce: {stamp['tool']['name']} {stamp['tool']['version']}"]
    for r in stamp.get("rulesets", []):
        options = ", ".join(f"{k}={v}" for k, v in r["options"].items())
        lines.append(f"  ruleset {r['id']} @ {r['hash']}" + (f" [{options}]" if options else ""))
    lines += [f"  input: {i['path']}" + (f" sha256:{i['sha256']}" if i.get("sha256") else "")
              for i in stamp.get("inputs", [])]
    if stamp.get("seed") is not None:
        lines.append(f"  seed: {stamp['seed']}")
    lines.append(f"  command: {stamp['command']}")
    return "\n".join(lines) + "\n"


def report_options(fn: F) -> F:
    """``--lang`` and ``--template-dir``, shared by every command that renders a report."""
    fn = click.option("--template-dir", type=click.Path(exists=True, file_okay=False),
                      help="Use templates (and labels.yaml) from this folder first.")(fn)
    return click.option("--lang", type=click.Choice(LANGS), default="en", show_default=True,
                        help="Labels: hanzi terms with English (en), or all Chinese.")(fn)


def deal_file(file: str | None) -> tuple[Path, str]:
    """The path of FILE (the bundled examples without one) and the name messages show."""
    if file is None:
        return example("examples.yaml")
    return Path(file), printable(file)


def load_deal_file(file: str | None, deal_ids: Sequence[str]) -> tuple[list[Deal], str]:
    """The deals of FILE (the bundled examples without one; ``-``: standard input), only
    *deal_ids* if given: :func:`stream_deal_file`'s deals, all read."""
    deals, _path, shown = stream_deal_file(file, deal_ids)
    return list(deals), shown


# ---------------------------------------------------------------------- progress


def stderr_is_terminal() -> bool:
    """Whether a person watches stderr (progress is never written into pipes or files)."""
    stream = sys.stderr
    return bool(stream is not None and stream.isatty())


@contextmanager
def progress(length: int, label: str, *, show: bool | None = None,
             unknown: bool = False) -> Iterator[Callable[[int], None]]:
    """A progress bar on stderr while a long command works; yields ``update(n)``.

    Shown only when stderr is a terminal — never in a pipe, a file or a log — and, unless
    *show* says otherwise, whatever the size (callers pass ``show=False`` for work that ends
    in well under two seconds).  stdout carries only the report either way.  With
    *unknown*, the total is not known ahead (a bulk file read as it goes): a running count.
    """
    if unknown and stderr_is_terminal() and show is not False:
        yield from _counter(label)
        return
    if not stderr_is_terminal() or show is False or length <= 0:
        yield lambda _n=1: None
        return
    with click.progressbar(length=length, label=label, file=sys.stderr,
                           show_pos=True, show_eta=True) as bar:
        yield bar.update


def _counter(label: str) -> Iterator[Callable[[int], None]]:
    done = [0]

    def update(n: int = 1) -> None:
        done[0] += n
        if done[0] % 500 == 0:
            click.echo(f"\r{label}: {done[0]:,}", nl=False, err=True)
    try:
        yield update
    finally:
        if done[0] >= 500:
            click.echo(f"\r{label}: {done[0]:,}", err=True)


# ---------------------------------------------------------------------- conventions: -, -o, -f

STDIN = "-"
STDIN_NAME = "<stdin>"
"""How standard input is named in messages and stamps."""


def read_document(file: str) -> Document:
    """FILE parsed (YAML or JSON); ``-`` reads standard input, bounded like a file (a sitting
    in JSON Lines too)."""
    if file != STDIN:
        return load_file(file)
    return cast(Document, _read_stdin(stream_deals=False))  # only deals are streamed


def read_input(file: str) -> Document | Iterator[Deal]:
    """:func:`read_document`, except that JSON Lines deals on standard input come as their
    deals, read line by line (as ``replay -`` reads them)."""
    if file != STDIN:
        return load_file(file)
    return _read_stdin(stream_deals=True)


def _read_stdin(*, stream_deals: bool) -> Document | Iterator[Deal]:
    raw = getattr(sys.stdin, "buffer", sys.stdin)
    limit = current_limits().max_bytes
    first = raw.readline(limit + 2)
    kind = jsonl_kind(first)
    if kind == "deals" and stream_deals:
        return iter_deal_stream(Prefixed(first, raw), STDIN_NAME)
    text = first + raw.read(max(0, limit + 1 - len(first)))
    if kind == "sitting" and text[len(first):].strip():  # the sitting, then a hand a line
        return json_lines_document(text, STDIN_NAME)
    # JSON is told by its first character (a deal file is a mapping; a stdin has no name).
    return load_text(text, STDIN_NAME, is_json=looks_like_json(text))


EXTENSIONS = {".txt": "text", ".text": "text", ".md": "md", ".markdown": "md", ".html": "html",
              ".htm": "html", ".tex": "latex", ".csv": "csv", ".json": "json", ".jsonl": "jsonl",
              ".yaml": "yaml", ".yml": "yaml"}
"""Output file extension → the format it names (``-o report.html`` means ``-f html``)."""

SAME_FILE_KIND = {"ledger": "csv"}
"""Formats that another format's extension fits (``-f ledger -o payments.csv``)."""


def output_format(fmt: str | None, output: str | None, choices: Sequence[str], default: str) -> str:
    """The format of a command's output: ``-f`` if given, else the one ``-o``'s extension
    names (when this command writes it), else *default*.  A ``-f`` that contradicts the
    extension is an error, not a silent surprise."""
    inferred = None
    if output not in (None, STDIN):
        inferred = EXTENSIONS.get(Path(str(output)).suffix.lower())
        if inferred not in choices:
            inferred = None
    if fmt is not None and inferred is not None and fmt != inferred and SAME_FILE_KIND.get(fmt) != inferred:
        raise InputError(f"-f {fmt} contradicts -o {output} (a {Path(str(output)).suffix} file is "
                         f"{inferred}): give one of them, or a file name that matches")
    return fmt or inferred or default


def format_option(choices: Sequence[str], default: str, what: str = "Output format") -> Callable[[F], F]:
    """``-f/--format`` with no click default, so that ``-o``'s extension can decide."""
    return click.option("-f", "--format", "fmt", type=click.Choice(list(choices)), default=None,
                        help=f"{what}: {', '.join(choices)} (default: from -o's extension, else {default}).")


def rulesets_option(default: str) -> Callable[[F], F]:
    """``-r/--ruleset``, repeatable: ids, ``all`` or ruleset files, completed from the data."""
    return click.option("-r", "--ruleset", "rulesets", multiple=True, metavar="ID|PATH",
                        shell_complete=complete.ruleset_ids,
                        help="Ruleset id (see `mahdiao rulesets`), 'all', or a ruleset YAML path. "
                             f"Repeatable. Default: {default}.")


full_sources_option = click.option(
    "--full-sources", is_flag=True,
    help="JSON: give every fired item and ledger line its quoted source phrase, not only "
         "the key of the document's sources table.")
"""``--full-sources`` of the commands that write ledgers (replay, sitting)."""


def settings_option(help: str = "Override a ruleset option for this run. Repeatable.") -> Callable[[F], F]:
    """``--set RULESET.OPTION=VALUE``, repeatable, completed with the options' readings."""
    return click.option("--set", "settings", multiple=True, metavar="RULESET.OPTION=VALUE",
                        shell_complete=complete.settings, help=help)


def svg_place(folder: str | None, *, others: Iterable[Destination] = ()) -> Destination | None:
    """Check ``--svg-dir`` when the command starts (None when not given)."""
    return None if folder is None else folder_destination(folder, others=others)


def write_svgs(folder: Destination, charts: Sequence[tuple[str, dict[str, Any]]], title: str,
               draw: Callable[..., str] = bar_chart) -> None:
    """Each chart as a standalone FOLDER/<name>.svg: names unique and bounded, all or nothing.

    *draw* makes the SVG text from a chart spec (``svg.bar_chart``, or ``svg.line_chart``
    for a sitting's running totals)."""
    names = chart_file_names([name for name, _ in charts])
    write_files(folder, [(f"{stem}.svg", draw(spec, title=title, standalone=True))
                         for stem, (_, spec) in zip(names, charts, strict=True)])


def stream_deal_file(file: str | None, deal_ids: Sequence[str]) -> tuple[Iterator[Deal], Path | None, str]:
    """:func:`load_deal_file` one deal at a time: the deals are read as they are used (``-``:
    standard input, JSON Lines read line by line, anything else whole within the limits)."""
    if file == STDIN:
        path, shown = None, STDIN_NAME
        deals = iter_deal_stream(getattr(sys.stdin, "buffer", sys.stdin), shown)
    else:
        path, shown = deal_file(file)
        deals = iter_deals(str(path), display_name=shown)
    deals = _only(deals, deal_ids, shown) if deal_ids else deals
    # Read the first deal now: a bad file is reported before anything else is looked at.
    first = next(deals, None)
    return (itertools.chain([first], deals) if first is not None else iter(())), path, shown


_IDS_SHOWN = 1000
"""How many ids of a file an unknown ``--deal`` message can list."""


def _only(deals: Iterator[Deal], ids: Sequence[str], shown: str) -> Iterator[Deal]:
    wanted, seen, listed = set(ids), set(), []
    more = 0
    for deal in deals:
        if len(listed) < _IDS_SHOWN:
            listed.append(deal.id)
        else:
            more += 1
        if deal.id in wanted:
            seen.add(deal.id)
            yield deal
    missing = [i for i in ids if i not in seen]
    if missing:
        tail = f", … and {more} more" if more else ""
        raise InputError(f"no deal with id {', '.join(map(repr, missing))} "
                         f"(ids: {', '.join(sorted(listed))}{tail})", file=shown)


def check_settings_targets(settings: Sequence[str], chosen: Sequence[Any]) -> None:
    """Every ``--set`` must name a ruleset of this run (a typo would otherwise be ignored)."""
    _check_targets(parse_settings(settings), chosen)


def _check_targets(parsed: dict[str, dict[str, str]], chosen: Sequence[Any]) -> None:
    ids = {rs.id for rs in chosen}
    for rs_id in parsed:
        if rs_id not in ids:
            raise InputError(f"--set names ruleset {rs_id!r}, which is not in this run "
                             f"(rulesets: {', '.join(sorted(ids))})")
