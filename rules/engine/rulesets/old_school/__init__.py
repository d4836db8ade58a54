"""The old school ruleset (``seeds/old-school.md``, rulings OS-1..OS-10).

The registry imports ``rules.engine.rulesets.old_school.OldSchool``; the rules are in
``ruleset.py`` and their data (tables, schemas) in ``data.py``.
"""

from rules.engine.rulesets.old_school.ruleset import OldSchool

__all__ = ["OldSchool"]
