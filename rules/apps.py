from django.apps import AppConfig


class RulesConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "rules"

    def ready(self) -> None:
        # A dice seed's rotation and the play still under way (rules/dice_rotation.py).
        from campaigns.services import ROTATION_CHECKS, ROTATION_FOLLOWUPS
        from rules.dice_rotation import refuse_while_secret, reseal_secret_orders

        if refuse_while_secret not in ROTATION_CHECKS:
            ROTATION_CHECKS.append(refuse_while_secret)
        if reseal_secret_orders not in ROTATION_FOLLOWUPS:
            ROTATION_FOLLOWUPS.append(reseal_secret_orders)
