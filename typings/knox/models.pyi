# Types of the parts of django-rest-knox this project uses (knox ships none).
from datetime import datetime
from typing import ClassVar

from django.contrib.auth.models import User
from django.db import models

def get_digest_token(prefix: str | None = None) -> tuple[str, str]: ...

class AbstractAuthToken(models.Model):
    objects: ClassVar[models.Manager[AbstractAuthToken]]
    digest: models.CharField[str, str]
    token_key: models.CharField[str, str]
    user: models.ForeignKey[User, User]
    created: models.DateTimeField[datetime, datetime]
    expiry: models.DateTimeField[datetime | None, datetime | None]
