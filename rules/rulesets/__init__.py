"""The rulesets, one module a sheet of `rules/sheets/`. Nothing is registered by importing them:
`rules.engine.REGISTRY` names each ruleset's module and class, and a ruleset's module is imported
the first time it is asked for."""
