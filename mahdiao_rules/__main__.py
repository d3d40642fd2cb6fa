"""``python -m mahdiao_rules`` runs the ``mahdiao`` command."""

from .cli import main

main()
