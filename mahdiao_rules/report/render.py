"""Render report models with jinja2 templates; one renderer per ``--format`` choice.

A model (see report.py, explain.py, ruletable.py) is plain data; a renderer
picks the template ``<kind>.<ext>.j2`` (``replay.html.j2``, ``rules-diff.tex.j2``
…) from ``--template-dir`` first, then from the bundled ``templates/``.  What
differs between formats is only how a value is made safe:

* text — nothing to escape; hanzi are aligned by display width, not ``len``;
* md — ``|``, ``<`` and line breaks (every ``{{ value }}``, as for LaTeX);
* html — autoescaped (every template of the HTML environment, including the
  shared macro files), and no URL scheme ever reaches the page;
* latex — every ``{{ value }}`` goes through :func:`latex_escape` (jinja's
  ``finalize``); only values marked safe (``|safe``, macro calls) pass as is;

JSON, JSON Lines and the CSV tables are data with a published shape, not
presentation: they are written by code from the model (:func:`render_report`,
tables.py), never by a template.

Labels come from ``labels.yaml`` (one table, one column per ``--lang``).
"""

from __future__ import annotations

import functools
import io
import json
import os
import re
import signal
import string
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from jinja2.exceptions import SecurityError, TemplateSyntaxError
from jinja2.loaders import split_template_path
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup, escape

from ..deal import SEAT_HANZI, SEATS
from ..errors import InputError
from ..io.resources import data_dir
from ..io.yamlsafe import Document, format_path, load_file
from ..messages import SEAT_PARAMS, Note
from ..ruleset.model import SourceText
from ..ruleset.terms import citation_text_zh
from .cite import LocalisedText, ReferenceText, full_reference, to_bibtex
from .hans import to_hans
from .simfilters import FILTERS as SIMULATION_FILTERS
from .svg import bar_chart, line_chart

LANGS = ("en", "zh-Hant", "zh-Hans")


# ---------------------------------------------------------------------- text widths


def display_width(text: Any) -> int:
    """Terminal columns taken by *text*: wide (hanzi) and full-width characters count 2."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in str(text))


def ljust(text: Any, width: int) -> str:
    s = str(text)
    return s + " " * max(0, width - display_width(s))


def rjust(text: Any, width: int) -> str:
    s = str(text)
    return " " * max(0, width - display_width(s)) + s


def text_table(rows: Sequence[Sequence[Any]], align: str = "", indent: int = 2, gap: int = 2) -> str:
    """Rows of cells as aligned lines; *align* has one ``l``/``r`` per column (default ``l``)."""
    rows = [[str(c) for c in row] for row in rows]
    n = max((len(r) for r in rows), default=0)
    widths = [max((display_width(r[i]) for r in rows if i < len(r)), default=0) for i in range(n)]
    lines = []
    for row in rows:
        cells = [rjust(c, widths[i]) if align[i:i + 1] == "r" else ljust(c, widths[i])
                 for i, c in enumerate(row)]
        lines.append((" " * indent + (" " * gap).join(cells)).rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------------- escaping

_LATEX = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_\allowbreak{}", "{": r"\{", "}": r"\}",
          "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "\\": r"\textbackslash{}",
          "<": r"\textless{}", ">": r"\textgreater{}", "\n": " "}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX))


def latex_escape(value: Any) -> str:
    """Plain text as LaTeX source: the ten special characters become commands (a line may
    break after ``_``, so a long identifier never runs out of its column)."""
    return _LATEX_RE.sub(lambda m: _LATEX[m.group()], str(value))


def name_box(name: Any) -> Markup:
    """A Chinese name kept whole on its line (\\mbox), except that a joined name ("渾成／八同")
    may break after each ／ or ・: names never wrap inside a word."""
    parts = re.split(r"([／・])", str(name))
    return Markup("".join(rf"\mbox{{{latex_escape(p)}}}" if i % 2 == 0 else latex_escape(p) + r"\allowbreak{}"
                          for i, p in enumerate(parts) if p))


def _latex_finalize(value: Any) -> Any:
    if isinstance(value, Markup):
        return str(value)
    return latex_escape("" if value is None else value)


_SCHEME = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://")


_HREF = re.compile(r"^https?://[^\s<>\"']+$")


def href(url: Any) -> Markup:
    """A source's address for an ``href`` or ``\\url``: only http(s), escaped; anything else
    becomes "" (the one way a URL reaches a page with its scheme, see _html_finalize)."""
    text = str(url or "")
    return Markup(escape(text)) if _HREF.match(text) else Markup("")


def _html_finalize(value: Any) -> Any:
    # The page fetches nothing: an address in text is shown without its scheme.  Sources
    # are linked only through the `href` filter (an <a href>, which loads nothing itself).
    if isinstance(value, str) and not isinstance(value, Markup) and "://" in value:
        return _SCHEME.sub("", value)
    return value


_MD = {"\\": "\\\\", "|": "\\|", "<": "&lt;", ">": "&gt;", "\n": " ", "\r": " ",
       "[": "\\[", "]": "\\]"}
_MD_RE = re.compile("|".join(re.escape(k) for k in _MD))


def md_escape(value: Any) -> str:
    """Text for a Markdown table cell or line: no pipe or line break splits a row, no
    ``<tag>`` of a deal title becomes HTML in a Markdown viewer, and no ``[text](url)`` or
    ``![image](url)`` becomes a link or an image (a ``javascript:`` link, or a remote image
    that reports the reader): the brackets are escaped."""
    return _MD_RE.sub(lambda m: _MD[m.group()], str(value))


def _md_finalize(value: Any) -> Any:
    return str(value) if isinstance(value, Markup) else md_escape("" if value is None else value)


# ---------------------------------------------------------------------- labels


class Labels:
    """``L.banker`` → the label in the chosen language; ``say(key, **fields)`` fills a phrase."""

    def __init__(self, table: dict[str, dict[str, str]], lang: str) -> None:
        self._table = table
        self.lang = lang

    def __getattr__(self, key: str) -> str:
        return self[key]

    def __getitem__(self, key: str) -> str:
        try:
            return self._table[key][self.lang]
        except KeyError:
            raise InputError(f"labels.yaml has no {self.lang!r} label for {key!r}") from None

    def get(self, key: str, default: str = "") -> str:
        entry = self._table.get(key)
        return entry.get(self.lang, default) if entry else default

    def say(self, key: str, **fields: Any) -> str:
        """The phrase *key* with its ``{fields}`` filled in (plain text)."""
        return self.phrase(key, None, **fields)

    def phrase(self, key: str, escape_fn: Callable[[str], str] | None, **fields: Any) -> str:
        """The phrase *key*, filled in; with *escape_fn* the phrase's own text and the plain
        fields are escaped and fields already escaped (Markup: a macro's output) are kept,
        so nothing is escaped twice, and the result is Markup."""
        out = []
        for literal, name, _spec, _conv in string.Formatter().parse(self[key]):
            out.append(escape_fn(literal) if escape_fn else literal)
            if name is not None:
                value = fields.get(name)
                text = "" if value is None else str(value)
                out.append(text if escape_fn is None or isinstance(value, Markup) else escape_fn(text))
        return "".join(out) if escape_fn is None else Markup("".join(out))


def load_labels(template_dir: str | Path | None, lang: str) -> Labels:
    if lang not in LANGS:
        raise InputError(f"--lang takes {', '.join(LANGS)}, not {lang!r}")
    table = _labels_table(load_file(data_dir("templates") / "labels.yaml"))
    if template_dir is not None:
        own = Path(template_dir) / "labels.yaml"
        if own.is_file():
            for key, value in _labels_table(load_file(own)).items():
                table[key] = {**table.get(key, {}), **value}
    return Labels(table, lang)


def _labels_table(doc: Document) -> dict[str, dict[str, str]]:
    """A labels file as ``{key: {lang: text}}``, every phrase checked: a labels.yaml of a
    --template-dir is input like any other, and its mistakes are one line naming the place."""
    def fail(path: tuple[str, ...], message: str) -> InputError:
        return InputError(message, file=doc.file, line=doc.line_of(path), place=format_path(path))

    if doc.data is None:
        return {}
    if not isinstance(doc.data, dict):
        raise fail((), "labels.yaml must be a mapping: key: {en: …, zh-Hant: …, zh-Hans: …}")
    table: dict[str, dict[str, str]] = {}
    for key, entry in doc.data.items():
        if not isinstance(key, str):
            raise fail((str(key),), f"a label key is text, not {key!r}")
        if not isinstance(entry, dict):
            raise fail((key,), f"a label is a mapping of languages ({', '.join(LANGS)}) to text")
        for lang, text in entry.items():
            path = (key, str(lang))
            if lang not in LANGS:
                raise fail(path, f"unknown language {lang!r} (languages: {', '.join(LANGS)})")
            if not isinstance(text, str):
                raise fail(path, f"a label is text, not {text!r}")
            problem = _phrase_problem(text)
            if problem is not None:
                raise fail(path, problem)
        table[key] = dict(entry)
    return table


def _phrase_problem(text: str) -> str | None:
    """Why *text* cannot be filled in as a phrase (None when it can): its ``{fields}`` must be
    plain names; a literal brace is written twice (``{{``)."""
    try:
        parts = list(string.Formatter().parse(text))
    except ValueError as exc:
        return f"{exc} in the phrase {text!r} (write {{{{ and }}}} for a literal brace)"
    for _literal, name, spec, conv in parts:
        if name is not None and (not name.isidentifier() or spec or conv):
            field = "{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}"
            return (f"the field {field} of the phrase {text!r} is not a plain name such as "
                    "{deals} (write {{ and }} for a literal brace)")
    return None


# ---------------------------------------------------------------------- notes

_SEAT_HANZI = {s.id: SEAT_HANZI[s] for s in SEATS}


def note_text(note: Any, labels: Labels) -> str:
    """A note in the report's language: a :class:`~..messages.Note` through its
    ``note_<id>`` phrase (seat ids as 東南西北), else (any other text, or no phrase for this
    language) as written."""
    if not isinstance(note, Note) or labels.lang == "en":
        return str(note)
    key = f"note_{note.id}"
    if not labels.get(key):
        return str(note)
    params = {k: _SEAT_HANZI.get(v, v) if k in SEAT_PARAMS else v for k, v in note.params.items()}
    return labels.say(key, **params)


def source_text(source: SourceText, labels: Labels) -> str:
    """A ledger line's citation (:class:`~..ruleset.model.SourceText`) in Chinese: the keys,
    places and quotations as they are, the project's own words (inferences, paraphrases) in
    Chinese (rulesets/i18n/citations.zh-Hant.yaml)."""
    parts = []
    for p in source.citation.parts:
        if p.kind == "inference":
            parts.append(f"{labels.get('cite_inference')}：{citation_text_zh(p.inference)}")
            continue
        where = p.ref + (f"（{labels.say('cite_via', via=p.via)}）" if p.via else "")
        place = p.section or p.locator
        if place:
            where += f"，{place}"
        if p.quote:
            parts.append(f"{where}「{p.quote}」")
        else:
            parts.append(f"{where}：{citation_text_zh(p.paraphrase)}（{labels.get('cite_paraphrase')}）")
    return "；".join(parts)


def localise_notes(value: Any, labels: Labels) -> Any:
    """*value* (a report model) with every Note and ledger citation in it worded in the
    report's language.  The model itself is left as it is: JSON outputs carry the English
    text, which is stable."""
    if isinstance(value, Note):
        return note_text(value, labels)
    if isinstance(value, SourceText):
        return source_text(value, labels)
    if isinstance(value, ReferenceText):
        return full_reference(value.key, value.entry, labels.lang)
    if isinstance(value, LocalisedText):
        return value.zh
    if isinstance(value, dict):
        return {k: localise_notes(v, labels) for k, v in value.items()}
    if isinstance(value, list):
        return [localise_notes(v, labels) for v in value]
    if isinstance(value, OnePass):  # the deals, one at a time as the template reads them
        return value.map(lambda v: localise_notes(v, labels))
    if type(value) is tuple:
        return tuple(localise_notes(v, labels) for v in value)
    return value


# ---------------------------------------------------------------------- environments


class _UserTemplates(jinja2.FileSystemLoader):
    """The templates of a --template-dir: UTF-8 text, or one error line naming the file and line."""

    def get_source(self, environment: jinja2.Environment, template: str
                   ) -> tuple[str, str, Callable[[], bool]]:
        try:
            return super().get_source(environment, template)
        except UnicodeDecodeError as exc:
            path = os.path.join(self.searchpath[0], *split_template_path(template))
            raw = Path(path).read_bytes()
            raise InputError(f"the template is not UTF-8 text (byte 0x{raw[exc.start]:02x} here); "
                             "save it as UTF-8", file=path,
                             line=raw.count(b"\n", 0, exc.start) + 1) from None


_MAX_PRODUCT = 1_000_000
"""The longest text or list a user template may make with ``*``, and the largest power."""


class _Sandbox(SandboxedEnvironment):
    """jinja2's sandbox, for templates of a --template-dir: a template reads the report and
    the labels and calls the filters; it cannot reach Python internals (no ``__class__``,
    no ``__globals__``, no methods that change data it did not make), ``range`` stops at
    100,000 items, and ``*`` and ``**`` cannot make huge values."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "**" and isinstance(left, int | float) and isinstance(right, int | float):
            if abs(right) > 64 and abs(left) > 1:
                raise SecurityError(f"{left} ** {right} is too large for a template")
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, str | list | tuple) and isinstance(n, int) and \
                        len(seq) * n > _MAX_PRODUCT:
                    raise SecurityError("a template may not make a text or list longer than "
                                        f"{_MAX_PRODUCT:,} with *")
        return super().call_binop(context, operator, left, right)


def environment(template_dir: str | Path | None = None, *, fmt: str = "text") -> jinja2.Environment:
    """The jinja2 environment for *fmt*: the bundled templates, trusted; with *template_dir*,
    that folder first and every template run in jinja2's sandbox."""
    loaders: list[jinja2.BaseLoader] = []
    if template_dir is not None:
        loaders.append(_UserTemplates(str(template_dir)))
    loaders.append(jinja2.FileSystemLoader(str(data_dir("templates"))))
    finalize = {"latex": _latex_finalize, "html": _html_finalize, "md": _md_finalize}.get(fmt)
    env = (jinja2.Environment if template_dir is None else _Sandbox)(
        loader=jinja2.ChoiceLoader(loaders),
        undefined=jinja2.StrictUndefined,
        # Every template an HTML renderer loads is HTML, shared macro files included.
        autoescape=True if fmt == "html" else jinja2.select_autoescape(
            enabled_extensions=("html.j2",), default=False),
        finalize=finalize,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        extensions=["jinja2.ext.do"],
    )
    env.filters.update(
        ljust_w=ljust, rjust_w=rjust, width=display_width, text_table=text_table,
        latex=lambda v: Markup(latex_escape(v)), md=lambda v: Markup(md_escape(v)),
        svg=lambda spec, **kw: Markup(bar_chart(spec, **kw)),
        href=href,
        name_box=name_box,
        bibtex=lambda rows: Markup(to_bibtex({r["key"]: r["entry"] for r in rows})),
        line_svg=lambda spec, **kw: Markup(line_chart(spec, **kw)),
        csv_row=_csv_row,
    )
    env.filters.update(SIMULATION_FILTERS)  # estimates, intervals, histograms (simfilters.py)
    return env


TEMPLATE_SECONDS_VAR = "MAHDIAO_TEMPLATE_SECONDS"
TEMPLATE_SECONDS = 60
"""How long a report may take to render when a --template-dir is given (POSIX only)."""


class _TooSlow(Exception):
    pass


def _template_seconds() -> float:
    raw = os.environ.get(TEMPLATE_SECONDS_VAR, "").strip()
    if not raw:
        return TEMPLATE_SECONDS
    try:
        value = float(raw)
    except ValueError:
        value = -1
    if not 0 < value <= 86400:
        raise InputError(f"environment variable {TEMPLATE_SECONDS_VAR}={raw!r}: expected a number "
                         f"of seconds from 0 to 86400 (default {TEMPLATE_SECONDS})")
    return value


@contextmanager
def _time_bound(seconds: float) -> Iterator[None]:
    """Raise _TooSlow in the main thread after *seconds* (where SIGALRM exists)."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(_signum: int, _frame: Any) -> None:
        raise _TooSlow

    old = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _csv_row(cells: Iterable[Any]) -> str:
    """One CSV record for a CSV template (the template's own line break ends it)."""
    from .tables import csv_row

    return csv_row(cells).removesuffix("\n")


@dataclass(frozen=True)
class TemplateRenderer:
    """Render a view with ``<kind>.<ext>.j2``, piece by piece as the template produces it."""

    fmt: str
    ext: str
    bom: bool = False

    def template_name(self, kind: str) -> str:
        return f"{kind}.{self.ext}.j2"

    def generate(self, view: dict[str, Any], *, kind: str, template_dir: str | Path | None = None,
                 lang: str = "en") -> Iterator[str]:
        """The text in pieces: a template that loops over a lazy ``deals`` sequence settles and
        renders one deal at a time, and the pieces can be written as they come."""
        env = environment(template_dir, fmt=self.fmt)
        labels = load_labels(template_dir, lang)
        if lang != "en":
            view = localise_notes(view, labels)
        escape_fn = _ESCAPES.get(self.fmt)
        say = functools.partial(labels.phrase, escape_fn=escape_fn) if escape_fn else labels.say
        if template_dir is None:
            # The bundled templates: trusted (a failure is a bug), and written piece by piece.
            pieces: Iterable[str] = self._template(env, kind).generate(report=view, L=labels, say=say,
                                                                       lang=lang)
        else:
            # A user's: sandboxed and rendered whole within a time bound (its size is bounded:
            # a text, md, html or latex replay holds at most 10,000 deals).
            seconds = _template_seconds()
            try:
                with _time_bound(seconds):
                    template = self._template(env, kind)
                    pieces = [template.render(report=view, L=labels, say=say, lang=lang)]
            except InputError:
                raise
            except _TooSlow:
                raise InputError(f"the templates took longer than {seconds:g} s to render "
                                 f"(a loop that does not end? {TEMPLATE_SECONDS_VAR} sets the "
                                 "bound)", file=str(template_dir)) from None
            except Exception as exc:
                # A user's template may be wrong in any way: say which one, where and how,
                # in one line.  A bundled template failing is a bug and keeps its traceback.
                where = _users_place(exc, template_dir)
                if where is None:
                    raise
                raise InputError(f"template error: {_template_message(exc)}", file=where[0],
                                 line=where[1]) from None
        if lang == "zh-Hans":
            # names, terms, quotations and the labels alike; line by line, so that no phrase
            # of the table is cut between two pieces
            pieces = (to_hans(chunk) for chunk in _whole_lines(pieces))
        if self.fmt != "html":
            yield from pieces
            return
        marker = ChineseMarker(lang)
        for piece in pieces:
            yield marker.feed(piece)
        yield marker.close()

    def _template(self, env: jinja2.Environment, kind: str) -> jinja2.Template:
        try:
            return env.get_template(self.template_name(kind))
        except jinja2.TemplateNotFound as exc:
            if exc.name != self.template_name(kind):
                raise
            raise InputError(f"no template {self.template_name(kind)!r} for --format "
                             f"{self.fmt}") from None

    def __call__(self, view: dict[str, Any], *, kind: str = "replay",
                 template_dir: str | Path | None = None, lang: str = "en") -> str:
        text = "".join(self.generate(view, kind=kind, template_dir=template_dir, lang=lang))
        return ("\ufeff" + text) if self.bom else text


_TAG = re.compile(r"(<[^>]*>)")
_HAN_CHARS = "\u2e80-\u2fdf\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
_HAN = re.compile(f"[{_HAN_CHARS}]+(?:[ ·0-9]*[{_HAN_CHARS}]+)*")
"""A run of hanzi (CJK punctuation and full-width forms included; spaces inside a run kept)."""
_RAW = ("title", "style", "script", "svg", "textarea")
"""Elements whose text a <span> must not enter (raw text, or SVG where HTML spans do not render)."""


def _whole_lines(pieces: Iterable[str]) -> Iterator[str]:
    """The pieces of a text regrouped to end at line ends (the last may not)."""
    rest = ""
    for piece in pieces:
        text = rest + str(piece)
        cut = text.rfind("\n") + 1
        if cut:
            yield text[:cut]
        rest = text[cut:]
    if rest:
        yield rest


def mark_chinese(html: str, lang: str) -> str:
    """Wrap each run of hanzi in the text of a page whose language is not Chinese in
    ``<span lang="zh-Hant">`` (zh-Hans for simplified data), so that browsers, screen
    readers and search pick the right font, line breaking and voice for the Chinese terms
    of an English page.  Tags and attribute values are never touched."""
    marker = ChineseMarker(lang)
    return marker.feed(html) + marker.close()


class ChineseMarker:
    """:func:`mark_chinese` for a page written in pieces: each piece is marked up to its last
    tag (the text after it may go on in the next piece) and the rest waits."""

    def __init__(self, lang: str) -> None:
        self.on = not lang.startswith("zh")
        self.skip: str | None = None
        self.rest = ""

    def feed(self, piece: str) -> str:
        if not self.on:
            return piece
        text = self.rest + str(piece)  # str(): a Markup piece would escape what waits
        cut = text.rfind(">") + 1
        self.rest = text[cut:]
        return self._mark(text[:cut])

    def close(self) -> str:
        text, self.rest = self.rest, ""
        return self._mark(text) if self.on else text

    def _mark(self, html: str) -> str:
        out = []
        for part in _TAG.split(html):
            if part.startswith("<"):
                name = part[1:].split(None, 1)[0].rstrip(">/").lower() if len(part) > 2 else ""
                if self.skip is None and name in _RAW and not part.endswith("/>"):
                    self.skip = name
                elif self.skip is not None and name == "/" + self.skip:
                    self.skip = None
                out.append(part)
            elif self.skip is None and part:
                out.append(_HAN.sub(lambda m: f'<span lang="zh-Hant">{m.group()}</span>', part))
            else:
                out.append(part)
        return "".join(out)


_ESCAPES: dict[str, Callable[[str], str]] = {
    "html": lambda t: str(escape(t)), "latex": latex_escape, "md": md_escape}
"""How each format escapes the text of a phrase (``say``); text needs nothing."""


def _inside(path: str, folder: str | Path) -> bool:
    return Path(path).resolve().is_relative_to(Path(folder).resolve())


def _users_place(exc: BaseException, template_dir: str | Path) -> tuple[str, int | None] | None:
    """The user template (file, line) an error comes from, or None when it comes from no
    template of *template_dir* (then it is a bug, not the user's template)."""
    if isinstance(exc, TemplateSyntaxError):
        if exc.filename and _inside(exc.filename, template_dir):
            return exc.filename, exc.lineno
        return None
    found = None
    tb = exc.__traceback__
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name.endswith(".j2") and _inside(name, template_dir):
            found = (name, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _template_message(exc: BaseException) -> str:
    if isinstance(exc, TemplateSyntaxError):
        return f"syntax: {exc.message}"
    if isinstance(exc, SecurityError):
        return f"not allowed in a template: {exc}"
    if isinstance(exc, jinja2.TemplateNotFound):
        return f"no template {exc.name!r}"
    return f"{type(exc).__name__}: {exc}" if not isinstance(exc, jinja2.TemplateError) else str(exc)


TEMPLATES: dict[str, TemplateRenderer] = {
    "text": TemplateRenderer("text", "txt"),
    "md": TemplateRenderer("md", "md"),
    "html": TemplateRenderer("html", "html"),
    "latex": TemplateRenderer("latex", "tex"),
}
"""The formats a jinja2 template renders (for people); json, jsonl and the CSV tables are
written by code, since their columns and fields are a contract (contract.py, tables.py)."""

CSV_TEMPLATE = TemplateRenderer("csv", "csv", bom=True)
"""CSV of the kinds whose table is still a template: reconstruct, and simulate (for ablate as
well, whose report shares simulate's templates)."""


def render_json(model: dict[str, Any], **_: Any) -> str:
    return json.dumps(model, ensure_ascii=False, indent=2) + "\n"


RENDERERS: dict[str, Callable[..., str]] = {**TEMPLATES, "csv": CSV_TEMPLATE, "json": render_json}
"""Whole-text renderers of the kinds that build one model at once (reconstruct); a replay, a
sitting, an explanation and the rule tables go through :func:`render_report`."""


# ---------------------------------------------------------------------- every format, one place

FORMATS = ("text", "md", "html", "latex", "csv", "ledger", "json", "jsonl")
"""Every ``--format`` choice of every command (each command offers those that fit its kind)."""

STREAMED = ("json", "jsonl", "csv", "ledger")
"""Formats written item by item in constant memory (a document's items are never all held)."""


@dataclass
class Report:
    """What a command renders: a model (an envelope) and, for a document of many items (the
    deals of a replay), those items as a lazy iterable, consumed once while writing."""

    kind: str
    model: dict[str, Any]
    view: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    """Model → what the templates read (views.py); None: the model itself."""
    items_key: str | None = None
    items: Iterable[dict[str, Any]] | None = None
    count: int | None = None
    """How many items, when a template needs to know before it has seen them."""
    item_views: Callable[[Iterable[dict[str, Any]], str], Iterable[dict[str, Any]]] | None = None
    """Item models → what the templates read, in the report language (second argument)."""
    tail: Callable[[], dict[str, Any]] | None = None
    """Fields that follow the items, known once they are all written (a sitting's summaries)."""
    template_view: Callable[[dict[str, Any], Iterable[dict[str, Any]]], dict[str, Any]] | None = None
    """(model, items) → what the templates read, for a document they do not show item by item
    (a sitting is shown ruleset by ruleset); it consumes the items."""


def formats_for(kind: str) -> list[str]:
    """The ``--format`` choices that fit *kind*: its templates, its CSV tables, JSON (and JSON
    Lines for documents of many items)."""
    from .tables import TABLES

    out = []
    for name in FORMATS:
        r = TEMPLATES.get(name)
        if r is not None:
            if (data_dir("templates") / r.template_name(kind)).is_file():
                out.append(name)
        elif name in ("csv", "ledger"):
            templated = name == "csv" and (data_dir("templates") / f"{kind}.csv.j2").is_file()
            if (kind, name) in TABLES or templated:
                out.append(name)
        elif name == "json" or kind == "replay":
            out.append(name)
    return out


class OnePass:
    """The items of a document for a template: their number known ahead, each built when the
    template reaches it and dropped after (so an HTML report of many deals stays small)."""

    def __init__(self, items: Iterable[dict[str, Any]], count: int) -> None:
        self._items, self._count, self._used = items, count, False

    def __len__(self) -> int:
        return self._count

    def map(self, fn: Callable[[dict[str, Any]], dict[str, Any]]) -> OnePass:
        """The same items, each passed through *fn* when the template reaches it."""
        return OnePass((fn(item) for item in self._items), self._count)

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self._used:
            raise RuntimeError("a template reads the deals once (use report.index for a list of them)")
        self._used = True
        return iter(self._items)


def json_compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def render_report(report: Report, fmt: str, out: Any, *, lang: str = "en",
                  template_dir: str | Path | None = None) -> None:
    """Write *report* in *fmt* to the text stream *out*, item by item where there are items."""
    from .tables import TABLES, write_csv

    model, key = report.model, report.items_key
    if fmt == "json":
        if key is None:
            out.write(json.dumps(model, ensure_ascii=False, indent=2) + "\n")
            return
        # The envelope first, then one item per line as it is made.
        head = json.dumps(model, ensure_ascii=False, indent=2)
        out.write(head[:-2] + f',\n  "{key}": [')
        first = True
        for item in report.items or ():
            out.write(("\n    " if first else ",\n    ") + json_compact(item))
            first = False
        out.write("\n  ]" if not first else "]")
        for name, value in (report.tail() if report.tail else {}).items():
            # indented as json.dumps(indent=2) would, one level in
            text = json.dumps(value, ensure_ascii=False, indent=2).replace("\n", "\n  ")
            out.write(f',\n  {json.dumps(name)}: {text}')
        out.write("\n}\n")
    elif fmt == "jsonl":
        if key is None:
            raise InputError(f"--format jsonl is for documents of many items; {report.kind} has one")
        out.write(json_compact({**model, "kind": f"{report.kind}-header"}) + "\n")
        for item in report.items or ():
            out.write(json_compact(item) + "\n")
    elif (report.kind, fmt) in TABLES:
        columns, rows = TABLES[(report.kind, fmt)]
        table = rows(model, report.items)
        if lang != "en":  # citations and notes in the cells, in the report language
            labels = load_labels(template_dir, lang)
            table = ([localise_notes(c, labels) for c in row] for row in table)
        if lang == "zh-Hans":
            table = ([to_hans(c) if isinstance(c, str) else c for c in row] for row in table)
        write_csv(columns, table, out)
    elif fmt == "csv" and report.items_key is None:
        out.write(CSV_TEMPLATE(report.view(model) if report.view else model, kind=report.kind,
                               template_dir=template_dir, lang=lang))
    elif fmt in TEMPLATES:
        if report.template_view is not None:
            view = report.template_view(model, report.items or ())
        elif key is None:
            view = report.view(model) if report.view else model
        else:
            items = report.item_views(report.items or (), lang) if report.item_views else report.items or ()
            view = report.view(model) if report.view else dict(model)
            view[key] = OnePass(items, report.count if report.count is not None else 0)
        for piece in TEMPLATES[fmt].generate(view, kind=report.kind, template_dir=template_dir, lang=lang):
            out.write(piece)
    else:
        raise InputError(f"--format {fmt} is not available for {report.kind} "
                         f"(formats: {', '.join(formats_for(report.kind))})")


def render_text(report: Report, fmt: str, **kwargs: Any) -> str:
    """:func:`render_report` into a string (small documents, tests)."""
    buf = io.StringIO()
    render_report(report, fmt, buf, **kwargs)
    return buf.getvalue()


def replay_report(deals: Iterable[Any], rulesets: Sequence[Any], *, stamp: dict[str, Any],
                  settle_row: Callable[[Any], Sequence[Any]] | None = None,
                  settlements: Iterable[Sequence[Any]] | None = None, input_name: str = "",
                  full_sources: bool = False, count: int | None = None,
                  index: list[dict[str, Any]] | None = None) -> Report:
    """A replay document ready to render: the head now, each deal's model when a writer gets to
    it.  Give ``settle_row(deal)`` (the deal under every ruleset) or the *settlements* of each
    deal in order.  *count* and *index* (ids and titles) are what the templates need ahead."""
    from .replay import replay_deals, replay_head
    from .views import deal_views, head_view

    head = replay_head(rulesets, stamp, input_name=input_name, full_sources=full_sources)
    if settle_row is None:
        rows = iter(settlements or ())

        def settle_row(_deal: Any) -> Sequence[Any]:
            return next(rows)
    if count is None and isinstance(deals, Sequence):
        count = len(deals)
        index = [{"id": d.id, "title": d.title} for d in deals]
    items = replay_deals(deals, settle_row, full_sources=full_sources)
    shown_index = index or []
    return Report("replay", head, view=lambda m: {**head_view(m, None), "index": shown_index},
                  items_key="deals", items=items, count=count,
                  item_views=lambda models, lang: deal_views(models, rulesets, head, lang))


def sitting_report(sitting: Any, rulesets: Sequence[Any], *, stamp: dict[str, Any],
                   play: Callable[[Any], Any], input_name: str = "", full_sources: bool = False,
                   trust_record: bool = False) -> Report:
    """A sitting document ready to render: the head now, each hand's model (every ruleset in
    lockstep) when a writer gets to it, the summaries after.  ``play(rs)`` gives the sitting's
    play under *rs* — a fresh :class:`~mahdiao_rules.sitting.SittingPlay`, or hands played
    already read the same way (the API's runs); the templates call it again for the ledgers
    (second pass, see :mod:`.sittingview`)."""
    from .sitting import SittingStream, sitting_head
    from .sittingview import sitting_view

    head = sitting_head(sitting, rulesets, stamp, input_name=input_name, full_sources=full_sources,
                        trust_record=trust_record)
    stream = SittingStream(sitting, [play(rs) for rs in rulesets], full_sources=full_sources)

    def details(j: int) -> Iterable[dict[str, Any]]:
        return SittingStream(sitting, [play(rulesets[j])]).hands()

    return Report("sitting", head, items_key="hands", items=stream.hands(), count=len(sitting.hands),
                  tail=stream.tail,
                  template_view=lambda m, items: sitting_view(m, items, stream.tail, details, rulesets))


def rules_table_report(rs: Any, *, stamp: dict[str, Any], lang: str = "en") -> Report:
    """``rules table``: the model of one ruleset's items, ready to render in any format."""
    from .ruletable import rules_table, rules_table_view

    view = rules_table_view(rs, stamp=stamp, lang=lang)  # the model is made from it: build it once
    return Report("rules-table", rules_table(rs, stamp=stamp, lang=lang, view=view), view=lambda m: view)


def rules_diff_report(rulesets: Sequence[Any], *, stamp: dict[str, Any], lang: str = "en") -> Report:
    """``rules diff``: several rulesets compared by concept, ready to render in any format."""
    from .ruletable import rules_diff, rules_diff_view

    view = rules_diff_view(rulesets, stamp=stamp, lang=lang)  # the model is made from it: build it once
    return Report("rules-diff", rules_diff(rulesets, stamp=stamp, lang=lang, view=view), view=lambda m: view)


def explain_doc(deal: Any, settlement: Any, seat: Any, *, stamp: dict[str, Any]) -> Report:
    """``explain``: every ledger line behind one seat's net, ready to render in any format."""
    from .explain import explain_report, explain_view

    return Report("explain", explain_report(deal, settlement, seat, stamp=stamp), view=explain_view)
