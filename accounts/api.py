"""API for accounts: register and obtain a token (API.md)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.services import user_register


class RegisterApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    class InputSerializer(serializers.Serializer):
        username = serializers.CharField(max_length=150)
        password = serializers.CharField(write_only=True, style={"input_type": "password"})
        email = serializers.EmailField(required=False, allow_blank=True)

    class OutputSerializer(serializers.Serializer):
        id = serializers.IntegerField()
        username = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={201: OutputSerializer})
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_register(**data.validated_data)
        return Response(self.OutputSerializer(user).data, status=status.HTTP_201_CREATED)


class TokenApi(APIView):
    permission_classes = [AllowAny]
    authentication_classes: list[type] = []

    class OutputSerializer(serializers.Serializer):
        token = serializers.CharField()

    @extend_schema(request=AuthTokenSerializer, responses={200: OutputSerializer})
    def post(self, request: Request) -> Response:
        data = AuthTokenSerializer(data=request.data, context={"request": request})
        data.is_valid(raise_exception=True)
        token, _ = Token.objects.get_or_create(user=data.validated_data["user"])
        return Response({"token": token.key})
