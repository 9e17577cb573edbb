"""sepoys-and-soldiers: "Sepoys & Soldiers - QRS" (shared/seeds/001_14e3e4b7ab0503f1.txt), in
inches (1" = 25 yards, line 3).

Readings of the sheet:
- The sheet says nothing of line of sight: woods, towns, buildings and hills between two bases
  block it, a base sees out of the piece it stands in, and other bases do not block (one base is
  75-100 men, line 3, and fire is by base against a unit).
"""

from __future__ import annotations

from ..engine import Ruleset, register

SHEET = "001_14e3e4b7ab0503f1.txt"


@register
class SepoysAndSoldiers(Ruleset):
    id = "sepoys-and-soldiers"
    title = "Sepoys & Soldiers - QRS"
    sheet = SHEET
    unit = "in"
