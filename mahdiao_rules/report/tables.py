"""CSV tables: fixed columns per kind, numbers as numbers, one row at a time.

Every CSV a command writes has the columns listed here, whatever the input: a subtotal
column for every ledger channel (0 where nothing was paid through it), an empty cell
where a value is absent, ``true``/``false`` for yes/no, amounts as decimal numbers of 注
(``1.5``; a third is ``0.3333333333333333``, the JSON keeps it exact as ``"1/3"``).  So
two runs can be stacked, and a spreadsheet or pandas reads numbers as numbers.  Text
cells that a spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@`` …) get a
leading ``'``; numbers never do.  The reproducibility stamp is in every row (the tool,
the ruleset's hash, the input's SHA-256, the command): a note after the table would
break it for a CSV reader.  The file starts with a UTF-8 byte-order mark so that
spreadsheets read the hanzi.

Columns are a contract (docs/output-formats.md); ``tests/test_contracts.py`` checks that
two different runs give the same columns.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from typing import Any, TextIO

from .replay import CHANNEL_ORDER
from .views import SourceText, zhu_text

__all__ = ["TABLES", "csv_cell", "csv_number", "csv_row", "write_csv"]

BOM = "\ufeff"
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_number(value: Any) -> int | float | None:
    """A model amount (int, binary-exact float or ``"p/q"`` text) as a CSV number."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return value
    q = Fraction(value)
    return q.numerator if q.denominator == 1 else float(q)


def csv_cell(value: Any) -> str:
    """One cell: empty for None, true/false, numbers as written, text formula-neutralised."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_START) else text


def csv_row(cells: Iterable[Any]) -> str:
    """One CSV record with its line end."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([csv_cell(c) for c in cells])
    return buf.getvalue()


def write_csv(columns: list[str], rows: Iterable[list[Any]], out: TextIO) -> None:
    """The table, a row at a time, after the byte-order mark and the header."""
    out.write(BOM + csv_row(columns))
    for row in rows:
        out.write(csv_row(row))


def _options(options: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items())


class _Stamp:
    """The stamp columns of every row: ruleset hash and options, input and its hash, tool, command."""

    COLUMNS = ("ruleset_hash", "ruleset_options", "input", "input_sha256", "tool", "command")

    def __init__(self, stamp: dict[str, Any]) -> None:
        self.rulesets = {r["id"]: r for r in stamp.get("rulesets", [])}
        inputs = stamp.get("inputs") or [{}]
        self.input = [i.get("path") for i in inputs if i.get("path")]
        self.sha = [i.get("sha256") for i in inputs if i.get("sha256")]
        self.tool = f"{stamp['tool']['name']} {stamp['tool']['version']}"
        self.command = stamp.get("command", "")

    def cells(self, ruleset: str | None) -> list[Any]:
        rs = self.rulesets.get(ruleset or "", {})
        return [rs.get("hash"), _options(rs["options"]) if rs else None, " ".join(self.input) or None,
                " ".join(self.sha) or None, self.tool, self.command]


def _cite_text(parts: list[dict[str, Any]]) -> str | None:
    """A citation (as data) in one line, as ledger lines and reports print it."""
    from .contract import citation_of_data

    return citation_of_data(parts).short or None if parts else None


# ---------------------------------------------------------------------- replay


REPLAY_COLUMNS = ["deal", "title", "code", "ruleset", "status", "seat", "seat_hanzi", "role", "tricks",
                  "won", *CHANNEL_ORDER, "net", "items", *_Stamp.COLUMNS]
"""``replay -f csv``: one row per deal × ruleset × seat."""


def _item_text(it: dict[str, Any]) -> str:
    text = f"{it['name']} {zhu_text(it['zhu'])}"
    if it["count"] > 1:
        text += f" ×{it['count']}"
    return text + (" " + " ".join(it["cards"]) if it["cards"] else "")


def _seat_cells(head: dict[str, Any], result: dict[str, Any], seat: str) -> list[Any]:
    """A seat of one result (replay's, or a sitting hand's ``settlement``): seat, seat_hanzi,
    role and tricks (none when not played)."""
    v = result["seats"][seat]
    return [seat, head["accounts"][seat], v["role"], v["tricks"] if result["status"] == "played" else None]


def _channel_cells(v: dict[str, Any]) -> list[Any]:
    """A seat's net by channel, one column per channel of CHANNEL_ORDER."""
    return [csv_number(v["by_channel"].get(ch, 0)) for ch in CHANNEL_ORDER]


def replay_rows(head: dict[str, Any], deals: Iterable[dict[str, Any]]) -> Iterator[list[Any]]:
    st = _Stamp(head["stamp"])
    for deal in deals:
        for r in deal["results"]:
            for seat, v in r["seats"].items():
                items = "; ".join(_item_text(it) for it in r["fired"] if it["seat"] == seat)
                yield [deal["id"], deal["title"], deal["code"], r["ruleset"], r["status"],
                       *_seat_cells(head, r, seat), " ".join(v["won"]) or None, *_channel_cells(v),
                       csv_number(v["net"]), items or None, *st.cells(r["ruleset"])]


LEDGER_COLUMNS = ["deal", "ruleset", "line", "payer", "payee", "amount", "item", "name", "channel", "holder",
                  "note", "source", "citation", *_Stamp.COLUMNS]
"""``replay -f ledger``: one row per ledger line (transfer), in ledger order."""


def _line_cells(cite: SourceText, ruleset: str, line: dict[str, Any]) -> list[Any]:
    """A ledger line from its amount on: amount, item, name, channel, holder, note, source, citation."""
    return [csv_number(line["amount"]), line["item"], line["name"], line["channel"], line["holder"],
            line["note"] or None, line["source"] or None,
            cite(ruleset, line["item"], line["channel"]) or None]


def ledger_rows(head: dict[str, Any], deals: Iterable[dict[str, Any]]) -> Iterator[list[Any]]:
    st = _Stamp(head["stamp"])
    cite = SourceText(head)
    for deal in deals:
        for r in deal["results"]:
            for n, line in enumerate(r["ledger"], start=1):
                yield [deal["id"], r["ruleset"], n, line["payer"], line["payee"],
                       *_line_cells(cite, r["ruleset"], line), *st.cells(r["ruleset"])]


# ---------------------------------------------------------------------- explain


EXPLAIN_COLUMNS = ["deal", "ruleset", "seat", "item", "name", "holder", "direction", "payer", "payee",
                   "amount", "signed", "cards", "source", "citation", *_Stamp.COLUMNS]
"""``explain -f csv``: one row per ledger line behind the seat's net (both directions)."""


def explain_rows(model: dict[str, Any], _items: Any = None) -> Iterator[list[Any]]:
    st = _Stamp(model["stamp"])
    rs = model["ruleset"]["id"]
    for g in model["groups"]:
        for line in g["lines"]:
            yield [model["deal"]["id"], rs, model["seat"], line["item"], line["name"], line["holder"],
                   line["direction"], line["payer"], line["payee"], csv_number(line["amount"]),
                   csv_number(line["signed"]), line["note"] or None, g["source"] or None,
                   _cite_text(g["citation"]), *st.cells(rs)]


# ---------------------------------------------------------------------- rule tables


RULES_TABLE_COLUMNS = ["ruleset", "id", "name", "pinyin", "en", "gloss", "concept", "phase", "condition",
                       "zhu", "amount_rule", "channel", "group", "ends_hand", "bank", "split", "status",
                       "inherited_from", "status_basis", "source", "citation", "note", *_Stamp.COLUMNS]
"""``rules table -f csv``: one row per rule item; ``zhu`` is the amount when it is a number."""


def rules_table_rows(model: dict[str, Any], _items: Any = None) -> Iterator[list[Any]]:
    st = _Stamp(model["stamp"])
    rs = model["ruleset"]["id"]
    for it in model["items"]:
        yield [rs, it["id"], it["name"], it["pinyin"] or None, it["en"] or None, it["gloss"] or None,
               it["concept"], it["phase"], it["condition"], csv_number(it["zhu"]), it["amount"],
               it["channel"], it["group"], it["ends_hand"], it["bank"], it["split"], it["status"],
               it["inherited_from"] or None,
               it["status_basis"] or None, it["source"] or None, _cite_text(it["citation"]),
               it["note"] or None, *st.cells(rs)]


RULES_DIFF_COLUMNS = ["concept", "name", "pinyin", "en", "state", "correspondence", "ruleset", "present",
                      "item", "item_name", "zhu", "amount_rule", "channel", "condition", "status", "differs",
                      "source", "citation", *_Stamp.COLUMNS]
"""``rules diff -f csv``: one row per concept × ruleset (long form, so any diffs stack)."""


def rules_diff_rows(model: dict[str, Any], _items: Any = None) -> Iterator[list[Any]]:
    st = _Stamp(model["stamp"])
    ids = [r["id"] for r in model["rulesets"]]
    for row in model["rows"]:
        for rs, cell in zip(ids, row["cells"], strict=True):
            head = [row["concept"], row["name"], row["pinyin"] or None, row["en"] or None, row["state"],
                    row["correspondence"] or None, rs]
            if not cell["present"]:
                yield [*head, False, *[None] * 7, row["differs"], None, None, *st.cells(rs)]
                continue
            yield [*head, True, cell["item"], cell["name"], csv_number(cell["zhu"]),
                   cell["amount"], cell["channel"], cell["condition"], cell["status"], row["differs"],
                   cell["source"] or None, _cite_text(cell["citation"]), *st.cells(rs)]


# ---------------------------------------------------------------------- sittings


SITTING_COLUMNS = ["hand", "hand_id", "ruleset", "code", "banker_seat", "banker_player", "how", "status",
                   "stake", "guan_dui_before", "guan_dui_after", "player", "seat", "seat_hanzi", "role",
                   "tricks", *CHANNEL_ORDER, "net", "running", "money", "next_banker",
                   "next_banker_reason", "seed", *_Stamp.COLUMNS]
"""``sitting -f csv``: one row per hand × ruleset × player, in the order the hands were played."""


def sitting_rows(head: dict[str, Any], hands: Iterable[dict[str, Any]]) -> Iterator[list[Any]]:
    st = _Stamp(head["stamp"])
    for hand in hands:
        for r in hand["results"]:
            s = r["settlement"]
            seats = {p: seat for seat, p in zip(s["seats"], r["nets"], strict=True)}
            for player, seat in seats.items():
                yield [hand["number"], hand["id"], r["ruleset"], r["code"], r["banker"], r["banker_player"],
                       r["how"], s["status"], hand["stake"], csv_number(s["guan_dui"]["start"]),
                       csv_number(s["guan_dui"]["end"]), player, *_seat_cells(head, s, seat),
                       *_channel_cells(s["seats"][seat]), csv_number(r["nets"][player]),
                       csv_number(r["running"][player]),
                       csv_number(r["money"][player]), s["next_banker"], s["next_banker_reason"] or None,
                       head["seed"], *st.cells(r["ruleset"])]


SITTING_LEDGER_COLUMNS = ["hand", "hand_id", "ruleset", "line", "payer", "payer_player", "payee",
                          "payee_player", "amount", "item", "name", "channel", "holder", "note", "source",
                          "citation", *_Stamp.COLUMNS]
"""``sitting -f ledger``: one row per ledger line of every hand under every ruleset."""


def sitting_ledger_rows(head: dict[str, Any], hands: Iterable[dict[str, Any]]) -> Iterator[list[Any]]:
    st = _Stamp(head["stamp"])
    cite = SourceText(head)
    for hand in hands:
        for r in hand["results"]:
            player = dict(zip(r["settlement"]["seats"], r["nets"], strict=True))
            for n, line in enumerate(r["settlement"]["ledger"], start=1):
                yield [hand["number"], hand["id"], r["ruleset"], n, line["payer"], player.get(line["payer"]),
                       line["payee"], player.get(line["payee"]), *_line_cells(cite, r["ruleset"], line),
                       *st.cells(r["ruleset"])]


SIMULATE_SITTING_COLUMNS = ["ruleset", "measure", "player", "unit", "n", "mean", "sd", "ci95_low",
                            "ci95_high", "hands_per_sitting", "policy", "seed", *_Stamp.COLUMNS]
"""``simulate --sitting H -f csv``: one row per ruleset and measure (one value per sitting)."""


def simulate_sitting_rows(model: dict[str, Any], _items: Any = None) -> Iterator[list[Any]]:
    st = _Stamp(model["stamp"])
    settings = model["settings"]
    for r in model["rulesets"]:
        t, g = r["tenure"], r["guan_dui"]
        rows = [("spells", None, "spells", t["spells"]), ("bank_changes", None, "changes", t["changes"]),
                ("longest_spell", None, "hands", t["longest"]), ("redraws", None, "redraws", t["redraws"]),
                ("guan_dui_end", None, "注", g["end"]), ("guan_dui_max", None, "注", g["max"])]
        for p in r["players"]:
            rows += [("net", p["player"], "注", p), ("banker_hands", p["player"], "hands", p["banker_hands"])]
        for measure, player, unit, d in rows:
            ci = d["ci95"] or [None, None]
            yield [r["label"], measure, player, unit, d["n"], d["mean"], d["sd"], ci[0], ci[1],
                   settings["hands"], settings["policy"], settings["seed"], *st.cells(r["id"])]


TABLES: dict[tuple[str, str], tuple[list[str], Callable[..., Iterator[list[Any]]]]] = {
    ("replay", "csv"): (REPLAY_COLUMNS, replay_rows),
    ("replay", "ledger"): (LEDGER_COLUMNS, ledger_rows),
    ("explain", "csv"): (EXPLAIN_COLUMNS, explain_rows),
    ("rules-table", "csv"): (RULES_TABLE_COLUMNS, rules_table_rows),
    ("rules-diff", "csv"): (RULES_DIFF_COLUMNS, rules_diff_rows),
    ("sitting", "csv"): (SITTING_COLUMNS, sitting_rows),
    ("sitting", "ledger"): (SITTING_LEDGER_COLUMNS, sitting_ledger_rows),
    ("simulate-sitting", "csv"): (SIMULATE_SITTING_COLUMNS, simulate_sitting_rows),
}
"""(kind, format) → the fixed columns and the function that yields the rows."""
