"""The ``mahdiao`` command line: one module per command family, assembled here.

* ``replay`` — ``replay``, ``explain`` (deals through the pipeline, as reports);
* ``rules`` — ``rulesets``, ``rules table``, ``rules diff``;
* ``files`` — ``validate``, ``deal``;
* ``history`` — ``reconstruct``, ``code``;
* ``sim`` — ``simulate``, ``ablate``, ``bench``;
* ``sitting`` — ``sitting`` (a sequence of hands, the 椿 and the 官堆 carried over);
* ``common`` — what they share (one-line errors, atomic output, ``--set``).

Every command turns bad input into one line on stderr and exit code 2, and writes an
output file only when the whole report rendered (temp file + rename).  The command
line is the top of the package: it may import every stage, and nothing imports it.
"""

from __future__ import annotations

import click

from .. import __version__
from .common import Main
from .files import deal, validate
from .history import code, reconstruct
from .replay import explain, replay
from .rules import list_rulesets, rules
from .sim import ablate, bench, simulate
from .sitting import sitting


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="mahdiao")
def main() -> None:
    """Replay 馬吊 (Madiao) deals under historical rulesets and explain every payment.

    \b
    Pipeline: deal → play → settle → report.  Start with:
      mahdiao replay                 # the bundled example deals under feng
      mahdiao rulesets               # what rulesets are available
      mahdiao replay my-deals.yaml -r feng --format json -o result.json
    """


for _command in (replay, explain, sitting, list_rulesets, rules, validate, deal, reconstruct, code,
                 simulate, ablate, bench):
    main.add_command(_command)
