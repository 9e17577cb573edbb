"""skirmish-19c: "19th Century rules: QRS" (README.md; the mechanics in `ruleset.py`, the
sheet's tables in `sheet.toml`, read by `sheet.py`)."""
