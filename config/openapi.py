"""drf-spectacular's AutoSchema, naming nested serializers after their API class.

Each API class nests its own ``InputSerializer`` / ``OutputSerializer`` (HackSoft
style); without this they would all become one "Input" component in the schema.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema


class SawbonesAutoSchema(AutoSchema):
    def _get_serializer_name(
        self, serializer: Any, direction: str, bypass_extensions: bool = False
    ) -> str:
        name = super()._get_serializer_name(serializer, direction, bypass_extensions)
        qualname = type(serializer).__qualname__
        if "." in qualname:  # nested in an API class: prefix that class's name
            outer = qualname.split(".")[0].removesuffix("Api")
            if not name.startswith(outer):
                name = outer + name
        return str(name)


class ScopedTokenScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    """``Authorization: Token <secret>`` (accounts.authentication), as DRF's tokens were."""

    target_class = "accounts.authentication.ScopedTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, Any]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <secret>`: a token from POST auth/tokens/ or auth/token/",
        }
