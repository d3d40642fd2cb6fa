"""Historical fragments: partial deals as facts with their place in the file (``partial``),
every completion of a partial deal settled under each ruleset (``reconstruct``), and
complete legal deals built from "who won which card" (``construct``).  It may import the
stages below it (values, ``io``, ``ruleset``, ``play``, ``settle``, the pipeline), never
``simulate``, ``report`` or ``cli``.
"""
