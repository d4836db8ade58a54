"""API for accounts: register, obtain a token with a password, manage tokens (API.md)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import ApiToken
from accounts.selectors import discord_link_of, tokens_for_user
from accounts.services import (
    discord_link_code_create,
    discord_unlink,
    token_create,
    token_revoke,
    user_authenticate,
    user_register,
)
from campaigns.access import TokenScope, may_manage_tokens
from core.cleaning import MAX_ID, JsonSerializer, read_body
from core.openapi import operation
from core.output import attributes
from core.throttles import AnonThrottle, IpThrottle, LoginThrottle, RegistrationThrottle

# What auth/token/ (username and password) mints: a full-power token, as before.
PASSWORD_TOKEN_NAME = "Signed in with a password"  # noqa: S105 - a label


@extend_schema_field(
    {
        "type": "string",
        "maxLength": 150,
        # Django's usernames (UnicodeUsernameValidator), spaces around them trimmed
        "pattern": r"^\s*[\w.@+-]+\s*$",
        "description": "letters, digits and @ . + - _ only",
    }
)
class UsernameField(serializers.CharField):
    """A new username as Django takes it, said in the schema (issue 36)."""


class RegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [RegistrationThrottle, AnonThrottle, IpThrottle]

    class InputSerializer(JsonSerializer):
        username = UsernameField(max_length=150)
        # as long as auth/token/ takes (a longer one could never be used to sign in)
        password = serializers.CharField(
            write_only=True, max_length=4096, style={"input_type": "password"}
        )
        email = serializers.EmailField(required=False, allow_blank=True)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()

    @operation(
        {201: OutputSerializer},
        request=InputSerializer,
        refuses="the username is taken, or the password is too weak.",
    )
    def post(self, request: Request) -> Response:
        data = read_body(self.InputSerializer, request)
        user = user_register(**data)
        return Response(self.OutputSerializer(user).data, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []
    throttle_classes = [LoginThrottle, AnonThrottle, IpThrottle]

    class InputSerializer(JsonSerializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(
            max_length=4096, trim_whitespace=False, style={"input_type": "password"}
        )

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

    @operation(
        {200: OutputSerializer},
        request=InputSerializer,
        refuses="the username and the password do not match.",
        description="A new token with the user's full powers (scope `referee`), named "
        f'"{PASSWORD_TOKEN_NAME}"; it is listed by GET auth/tokens/ and can be revoked. '
        "Shown once. After repeated wrong passwords for a username from one address, "
        "429 with `Retry-After` until the pause ends.",
    )
    def post(self, request: Request) -> Response:
        data = read_body(self.InputSerializer, request)
        # The Django request: django-axes counts failures on it and locks out (429).
        user = user_authenticate(request=request._request, **data)
        _, secret = token_create(user=user, name=PASSWORD_TOKEN_NAME, scope=TokenScope.REFEREE)
        return Response(self.OutputSerializer({"token": secret}).data)


class ApiTokenSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    scope = serializers.ChoiceField(choices=TokenScope.choices)
    campaign = serializers.IntegerField(
        allow_null=True, help_text="the one campaign the token reaches, or null for all"
    )
    created = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True, help_text="to the minute")


class ApiTokenCreatedSerializer(ApiTokenSerializer):
    token = serializers.CharField(help_text="the secret: shown this once, never again")


def token_output(token: ApiToken) -> dict[str, Any]:
    return attributes(
        token,
        *("id", "name", "scope", "created", "last_used_at"),
        campaign="campaign_id",
        expires_at="expiry",
    )


class TokenListApi(APIView):
    class InputSerializer(JsonSerializer):
        name = serializers.CharField(max_length=100)
        scope = serializers.ChoiceField(choices=TokenScope.choices)
        campaign = serializers.IntegerField(
            required=False, allow_null=True, min_value=1, max_value=MAX_ID
        )
        expires_at = serializers.DateTimeField(required=False, allow_null=True)

    @extend_schema(
        responses={200: ApiTokenSerializer(many=True)},
        description="The user's tokens, without their secrets. Signed-in people and "
        "unlimited `referee` tokens only.",
    )
    def get(self, request: Request) -> Response:
        may_manage_tokens(request.user)
        return Response(
            ApiTokenSerializer(
                [token_output(t) for t in tokens_for_user(request.user)], many=True
            ).data
        )

    @operation(
        {201: ApiTokenCreatedSerializer},
        request=InputSerializer,
        refuses="`campaign` is not one of yours, `expires_at` is past, or you hold too many "
        "tokens.",
        description="A new token. `read`: GET only; `player`: what the user may do as a "
        "player; `referee`: all the user may do. With `campaign` it reaches that campaign "
        "only. The answer carries the secret, the only time it is shown.",
    )
    def post(self, request: Request) -> Response:
        may_manage_tokens(request.user)
        data = read_body(self.InputSerializer, request)
        token, secret = token_create(
            user=request.user,
            name=data["name"],
            scope=data["scope"],
            campaign_id=data.get("campaign"),
            expires_at=data.get("expires_at"),
        )
        return Response(
            ApiTokenCreatedSerializer({**token_output(token), "token": secret}).data,
            status=status.HTTP_201_CREATED,
        )


class TokenDetailApi(APIView):
    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="revoked: the token is refused from now")},
    )
    def delete(self, request: Request, token_id: int) -> Response:
        may_manage_tokens(request.user)
        token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# -- Discord links (docs/discord.md) ---------------------------------------------------------
class DiscordLinkCodeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        code = serializers.CharField(
            help_text="type it in Discord: `/sawbones link code:<code>`; works once"
        )
        expires_at = serializers.DateTimeField(help_text="ten minutes from now")

    @extend_schema(
        request=None,
        responses={201: OutputSerializer},
        description="A code that links the Discord user who types it (`/sawbones link`) to "
        "you, so that your slash commands act as you. Single use, ten minutes; a new code "
        "replaces your unused ones. Only its digest is kept. Signed-in people and unlimited "
        "`referee` tokens only, as for tokens.",
    )
    def post(self, request: Request) -> Response:
        may_manage_tokens(request.user)
        record, code = discord_link_code_create(user=request.user)
        return Response(
            self.OutputSerializer({"code": code, "expires_at": record.expires_at}).data,
            status=status.HTTP_201_CREATED,
        )


class DiscordLinkApi(APIView):
    class OutputSerializer(serializers.Serializer):
        linked = serializers.BooleanField()
        discord_user_id = serializers.CharField(
            allow_null=True, help_text="the Discord user's id (a snowflake), or null"
        )

    @extend_schema(
        responses={200: OutputSerializer},
        description="Whether a Discord user plays as you, and which. Signed-in people and "
        "unlimited `referee` tokens only.",
    )
    def get(self, request: Request) -> Response:
        may_manage_tokens(request.user)
        link = discord_link_of(request.user)
        return Response(
            self.OutputSerializer(
                {"linked": link is not None, "discord_user_id": link and link.discord_user_id}
            ).data
        )

    @extend_schema(
        request=None,
        responses={204: OpenApiResponse(description="unlinked (or there was no link)")},
        description="Unlink your Discord user: their slash commands act as nobody from now "
        "on (as `/sawbones unlink`).",
    )
    def delete(self, request: Request) -> Response:
        may_manage_tokens(request.user)
        discord_unlink(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
