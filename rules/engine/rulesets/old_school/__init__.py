"""The old school ruleset (its rule text, ``docs/rulesets/old_school.md``; rulings OS-1..OS-10).

The rules are in ``ruleset.py`` (the class the registry names,
``rules.engine.rulesets.old_school.ruleset.OldSchool``), their data (tables, schemas) in
``data.py`` and the odds of its actions in ``odds.py``. This package module imports
none of them, so each may import ``data`` without going round in a circle.
"""
