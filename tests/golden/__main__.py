"""`python -m tests.golden [RULESET]`: write the golden answers again (of one ruleset's
examples only, when it is named)."""

import sys

from tests.golden import write_all

write_all(sys.argv[1] if len(sys.argv) > 1 else None)
