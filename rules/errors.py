"""The errors of the rules package: all `ValueError`s that quote the bad input.

The command line turns any `UmpireError` into one line on stderr and exit status 2.
"""

from __future__ import annotations

from collections.abc import Iterable


class UmpireError(ValueError):
    """Base class of every error caused by bad input (a file, an id, a question)."""


class DocumentError(UmpireError):
    """A bad value in a file: the message names the file, the path inside it
    (`units[2].bases[0].x`) and what is accepted."""

    def __init__(self, source: str, path: str, message: str) -> None:
        where = f"{source}: {path}" if path else source
        super().__init__(f"{where}: {message}")
        self.source = source
        self.path = path
        self.detail = message


class SceneError(DocumentError):
    """A scene file that does not follow `umpire-scene/1`."""


class UnknownIdError(UmpireError):
    """An id that names no unit, base or terrain piece of the scene."""

    def __init__(self, ident: str, known: Iterable[str], what: str = "unit or base") -> None:
        known = sorted(known)
        shown = ", ".join(repr(k) for k in known[:12]) + (", ..." if len(known) > 12 else "")
        super().__init__(f"no {what} with id {ident!r} in the scene; ids are: {shown}")
        self.ident = ident


class UnknownRulesetError(UmpireError):
    """A ruleset id that is not registered."""

    def __init__(self, ident: object, known: Iterable[str]) -> None:
        super().__init__(f"unknown ruleset {ident!r}: known rulesets are {', '.join(known)}")
        self.ident = ident


class QuestionError(UmpireError):
    """A question the scene or the sheet cannot answer (a missing attribute, a wrong pairing)."""


class MissingAttribute(QuestionError):
    """A unit attribute a rule reads that the scene does not give. The engine carries on with a
    placeholder to find every other missing attribute of the question, and reports them all
    in one message."""

    def __init__(
        self, ruleset: str, unit: str, key: str, accepted_values: str, placeholder: object
    ) -> None:
        super().__init__(f"{ruleset}: unit {unit!r} has no {key!r}; give {accepted_values}")
        self.ruleset = ruleset
        self.unit = unit
        self.key = key
        self.accepted_values = accepted_values
        self.placeholder = placeholder


def accepted(values: Iterable[object]) -> str:
    """The accepted values of a closed set, for messages: `'a', 'b' or 'c'`."""
    quoted = [repr(v) for v in values]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]
