"""The one error of the calibration package.

Calibration turns pixels into table millimetres; when it cannot do that honestly (too few
reference tags, a lens it cannot model, a file it cannot read) it refuses with a
`CalibrationError` whose message says what is wrong and what the players should do about it.
Never imports `rules` or `vision`.
"""

from __future__ import annotations


class CalibrationError(ValueError):
    """A calibration that cannot be trusted, or bad input to one.

    The message names the input (the file, the argument, the tag ids) and what to fix, for
    example: ``only 3 corner tags seen (0, 1, 3); at least 4 are needed: check that tag 2 is
    uncovered and inside the picture``.
    """
