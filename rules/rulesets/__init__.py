"""The five rulesets, one module a sheet of `shared/seeds/`. Importing this package registers
them all with `rules.engine`."""

from . import (  # noqa: F401
    age_of_napoleon,
    colonial_adventure,
    europe_19c,
    sepoys_and_soldiers,
    skirmish_19c,
)
