"""``makemessages`` that also finds the rules engine's messages.

The engine names what it says with ``say``, ``say_plural`` and ``word``
(``rules/engine/words.py``: pure Python, no gettext); xgettext is told they are message
keywords, as Django's docs show for a project's own keywords.
"""

from __future__ import annotations

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [
        *makemessages.Command.xgettext_options,
        "--keyword=say",
        "--keyword=say_plural:1,2",
        "--keyword=word",
    ]
    # A guessed translation of a new message is marked fuzzy and must be checked; with
    # hundreds of short game words the guesses are mostly wrong: none are made.
    msgmerge_options = [*makemessages.Command.msgmerge_options, "--no-fuzzy-matching"]
