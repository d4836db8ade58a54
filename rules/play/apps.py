from django.apps import AppConfig


class PlayConfig(AppConfig):
    """The play: actions, choices, undo, editing, party actions, tables. It owns no
    table: what it writes is the log's (``rules.log``, app label ``rules``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "rules.play"
    label = "play"
    verbose_name = "Play"

    def ready(self) -> None:
        # A dice seed's rotation and the play still under way (rules/play/dice_rotation.py):
        # campaigns (below the play) owns the hooks, the play plugs into them.
        from campaigns.services import ROTATION_CHECKS, ROTATION_FOLLOWUPS
        from rules.play.dice_rotation import refuse_while_secret, reseal_secret_orders

        if refuse_while_secret not in ROTATION_CHECKS:
            ROTATION_CHECKS.append(refuse_while_secret)
        if reseal_secret_orders not in ROTATION_FOLLOWUPS:
            ROTATION_FOLLOWUPS.append(reseal_secret_orders)
