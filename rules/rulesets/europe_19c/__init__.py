"""europe-19c: "19th Century Europe QRS" (README.md beside this file; the class in `ruleset`)."""
