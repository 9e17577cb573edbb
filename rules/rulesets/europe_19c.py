"""europe-19c: "19th Century Europe QRS" (shared/seeds/004_8318ee244ed3ffb0.txt), in cm.

Readings of the sheet:
- Sight (lines 75-76): "Woods, Towns, Hills, other Units are obstructions" and "Level fire any
  obstruction blocks LOS": woods, towns, buildings, hills and the bases of other units block a
  sight line; a target is in sight when at least one sight line to its base is clear (fire is by
  unit, and the sheet does not ask for the whole base). A unit sees out of the piece it stands in.
- Fire between higher and lower ground (line 77) is left to the players: the scene has no
  heights yet.
"""

from __future__ import annotations

from typing import ClassVar

from ..engine import Cite, Ruleset, register

SHEET = "004_8318ee244ed3ffb0.txt"


@register
class Europe19c(Ruleset):
    id = "europe-19c"
    title = "19th Century Europe QRS"
    sheet = SHEET
    unit = "cm"
    bases_block_sight = True
    sight_rule: ClassVar[Cite | None] = Cite(
        SHEET, 75, "Woods, Towns, Hills, other Units are obstructions"
    )
