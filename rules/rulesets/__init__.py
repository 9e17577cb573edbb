"""The rulesets, one folder a sheet of `rules/sheets/` (its tables in `sheet.toml`, its readings
in `README.md`, its mechanics in `ruleset.py`). Nothing is registered by importing them:
`rules.engine.REGISTRY` names each ruleset's module and class, and a ruleset's module is imported
the first time it is asked for."""
