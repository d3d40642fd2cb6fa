"""Notes the stages add to a settlement (升代, the first lead, how the tricks were played,
events not priced, 代賠 not due, why the next 椿), by message id.

A :class:`Note` *is* its English text — what JSON outputs and the Python API carry, kept
stable — and also keeps its message id and parameters, so that a report renders it in its
own language: the Chinese wording of each id is ``note_<id>`` in ``templates/labels.yaml``
(report/render.py).  A seat parameter is a seat id (``east``), shown in Chinese as 東.
:class:`CarriedText` is the same idea for the citations and references a report prints.
"""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, str] = {
    # play/procedure.py
    "sheng_dai_in_stock": "升代: {card} would stand for the face card {face} but lies in the stock",
    "sheng_dai": "升代: {seat}'s {card} plays as the face card {face}",
    "first_lead_differs": "procedure: under {ruleset} the first lead would be {seat} ({seat_hanzi}); "
                          "the record has {record}",
    "played_by_policy": "play: no recorded tricks; played by the tool from {seat}'s lead",
    "played_at_random": "play: no recorded tricks; played at random from {seat}'s lead (seed {seed!r})",
    # settle/hand.py
    "event_not_played": "event {event}: the hand was not played (免斗), so no 代賠",
    "event_not_priced": "event {event} ({seat}): not priced by {ruleset}",
    "fine_nobody_to_pay": "event {event}: {fine} has nobody else to pay",
    "event_not_recorded": "event {event}: ignored, the tricks were not recorded",
    "offender_activated_himself": "event {event}: the offender {seat} activated himself; nothing due",
    "bank_top_earners_tie": "連莊: the top earners tie",
    "bank_banker_top_earner": "連莊: the 莊 is the top earner",
    "bank_top_earner": "the top earner becomes 莊",
    "ledger_trick": "trick {trick}",
    "offender_exhausted": "event {event}: {seat} held only {cards} when he played at trick {trick} "
                          "(三路既竭), so no 代賠",
}
"""Message id → English text with ``{parameters}``."""

SEAT_PARAMS = frozenset({"seat", "record"})
"""Parameters that hold a seat id."""


class CarriedText(str):
    """A text (the English a JSON output carries) that keeps what it was made from, so that a
    report words it again in its own language; attributes by keyword."""

    def __new__(cls, text: str, **attrs: Any) -> CarriedText:
        obj = super().__new__(cls, text)
        obj.__dict__.update(attrs)
        return obj

    def __reduce__(self) -> tuple[Any, ...]:  # pickled across --jobs processes with its attributes
        return (_rebuild, (type(self), str(self), dict(self.__dict__)))


def _rebuild(cls: type[CarriedText], text: str, attrs: dict[str, Any]) -> CarriedText:
    return CarriedText.__new__(cls, text, **attrs)


class Note(CarriedText):
    """A note: its English text, with the message id and parameters it was made from."""

    id: str
    params: dict[str, Any]


def note(message_id: str, **params: Any) -> Note:
    """The note *message_id* with its parameters (ids, hanzi, numbers — never prose)."""
    return Note(MESSAGES[message_id].format(**params), id=message_id, params=params)
