"""colonial-adventure: "QRS / COLONIAL ADVENTURE" (shared/seeds/002_9c2296e6290248df.txt), in
inches.

Readings of the sheet:
- The sheet gives an arc of fire (180 degrees to the front) but says nothing of line of sight:
  woods, towns, buildings and hills between two bases block it, a base sees out of the piece it
  stands in, and other bases do not block.
"""

from __future__ import annotations

from ..engine import Ruleset, register

SHEET = "002_9c2296e6290248df.txt"


@register
class ColonialAdventure(Ruleset):
    id = "colonial-adventure"
    title = "QRS / COLONIAL ADVENTURE"
    sheet = SHEET
    unit = "in"
