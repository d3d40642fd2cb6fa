"""Reports: plain models built from settlements and rulesets — a replay with its
differences (``replay``, ``compare``), one seat's payments (``explain``), rule tables and
diffs (``ruletable``), the glossary's generated table (``glossary``) — and their rendering
by jinja2 templates (``render``) with inline SVG charts (``svg``).  It may import every
stage below it (values, ``io``, ``ruleset``, ``play``, ``settle``, the pipeline); nothing but
the command line imports it.
"""
