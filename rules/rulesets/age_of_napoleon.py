"""age-of-napoleon: "Warfare in the Age of Napoleon", page 3
(shared/seeds/003_5b7c133d01707a77.txt), on a square grid.

Readings of the sheet:
- Distances are in grid boxes, a diagonal step counting 1.5 (line 18, "Firing on the diagonal:
  Count each square as 1.5 boxes"); a scene for this ruleset must give `grid.box`.
- The page says nothing of line of sight: woods, towns, buildings and hills between two units
  block it, a unit sees out of the piece it stands in, and other units do not block.
"""

from __future__ import annotations

from ..engine import Cite, Ruleset, register

SHEET = "003_5b7c133d01707a77.txt"
DIAGONAL = Cite(SHEET, 18, "Firing on the diagonal: Count each square as 1.5 boxes")


@register
class AgeOfNapoleon(Ruleset):
    id = "age-of-napoleon"
    title = "Warfare in the Age of Napoleon (page 3)"
    sheet = SHEET
    unit = "cm"
    grid = True
