"""Sepoys & Soldiers - QRS (rules/sheets/001_14e3e4b7ab0503f1.txt): README.md is the sheet's
readings, `sheet.toml` its tables, `ruleset.py` its mechanics."""
