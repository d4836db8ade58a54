"""The one plain-text token per user of rest_framework.authtoken becomes a named,
hashed ApiToken with the user's full powers: clients that send it keep working, and
the plain text is deleted."""

from django.db import migrations
from knox.crypto import hash_token
from knox.settings import CONSTANTS


def hash_old_tokens(apps, schema_editor):
    OldToken = apps.get_model("authtoken", "Token")
    ApiToken = apps.get_model("accounts", "ApiToken")
    for old in OldToken.objects.all().iterator():
        token = ApiToken(
            user_id=old.user_id,
            name="API token (from before named tokens)",
            scope="referee",
            digest=hash_token(old.key),
            token_key=old.key[: CONSTANTS.TOKEN_KEY_LENGTH],
        )
        token.save()
        ApiToken.objects.filter(pk=token.pk).update(created=old.created)
    OldToken.objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("authtoken", "0004_alter_tokenproxy_options"),
    ]

    operations = [migrations.RunPython(hash_old_tokens, migrations.RunPython.noop)]
