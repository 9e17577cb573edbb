"""`python -m tests.golden`: write the golden answers again."""

from tests.golden import write_all

write_all()
