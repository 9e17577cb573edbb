"""skirmish-19c: "19th Century rules: QRS" (shared/seeds/000_157c880a83b52d41.txt), in cm.

Readings of the sheet:
- Sight (line 55): "figures can see the entire base of a figure without obstruction, unless
  shooting over an object or person within 2 cms": a target is in sight only when every sight
  line from the viewer's centre to the target's centre and corners is clear; other bases block,
  except bases within 2 cm (edge to edge) of the viewer.
- Woods (line 57): "shot at in, or from, woods up to 10cms inside": a sight line may run up to
  10 cm into the woods at each end that stands in them; woods between two figures block.
- Towns, buildings and hills block sight across them; a figure sees out of the piece it stands
  in (the sheet is silent; this is the usual club reading).
"""

from __future__ import annotations

from types import MappingProxyType
from typing import ClassVar

from .. import geometry as geo
from ..engine import Cite, Ruleset, register
from ..scene import Base, Scene, TerrainKind

SHEET = "000_157c880a83b52d41.txt"
OVER_FIGURES_WITHIN_MM = 20.0
"""Line 55: a shooter may shoot over an object or person within 2 cm."""


@register
class Skirmish19c(Ruleset):
    id = "skirmish-19c"
    title = "19th Century rules: QRS"
    sheet = SHEET
    unit = "cm"
    bases_block_sight = True
    sight_needs_entire_base = True
    sight_rule: ClassVar[Cite | None] = Cite(
        SHEET, 55, "can see the entire base of a figure without obstruction"
    )
    see_into = MappingProxyType(
        {
            TerrainKind.WOODS: 100.0,  # line 57: "up to 10cms inside"
            TerrainKind.TOWN: geo.REACH,
            TerrainKind.BUILDING: geo.REACH,
            TerrainKind.HILL: geo.REACH,
        }
    )

    def sight_blocking_bases(self, scene: Scene, viewer: Base, target: Base) -> list[Base]:
        near = [b for b in super().sight_blocking_bases(scene, viewer, target)]
        return [b for b in near if geo.edge_distance(viewer, b) > OVER_FIGURES_WITHIN_MM]
