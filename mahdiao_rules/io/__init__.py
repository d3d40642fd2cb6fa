"""Input and output of files: the safe YAML/JSON reader (``yamlsafe``, every value with
its line), JSON Schema checks naming file:line (``schemacheck``, schemas in ``schemas/``),
deal files (``dealfile``), citable deal codes (``dealcode``) and the bundled data folders
(``resources``).  It may import only the shared values below it (``errors``, ``cards``,
``deal``, ``units``), never a ruleset, play, settlement or report module.
"""
