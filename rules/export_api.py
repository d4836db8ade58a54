"""API for exporting a campaign (JSON, CSV of the log) and importing it (rules.log_export)."""

from __future__ import annotations

from django.http import HttpResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from campaigns.access import access_campaign
from campaigns.api import CampaignOutputSerializer, campaign_output
from rules.log_export import campaign_export, campaign_import, log_csv


class CampaignExportApi(APIView):
    @extend_schema(
        responses={
            200: OpenApiResponse(
                description="The campaign as JSON (`format`, `version`, `campaign`, "
                "`tables`, `characters`, `resolutions`, `effects`): import it with "
                "`POST campaigns/import/`. The dice seed stays secret and is left out."
            )
        },
        description="Referee only: everything needed to restore the campaign.",
    )
    def get(self, request: Request, campaign_id: int) -> Response:
        membership = access_campaign(request.user, campaign_id, referee=True)
        return Response(campaign_export(membership.campaign))


class CampaignLogCsvApi(APIView):
    @extend_schema(
        responses={200: OpenApiResponse(description="The log as CSV, oldest first.")},
        description="Referee only: the campaign's whole log as CSV (text/csv).",
    )
    def get(self, request: Request, campaign_id: int) -> HttpResponse:
        membership = access_campaign(request.user, campaign_id, referee=True)
        response = HttpResponse(log_csv(membership.campaign), content_type="text/csv")
        response["Content-Disposition"] = f'attachment; filename="campaign-{campaign_id}-log.csv"'
        return response


class CampaignImportApi(APIView):
    class InputSerializer(serializers.Serializer):
        export = serializers.DictField(help_text="an export of GET campaigns/{id}/export/")

    @extend_schema(
        request=InputSerializer,
        responses={201: CampaignOutputSerializer},
        description="A new campaign from an export, with you as its referee and the owner "
        "of every character; sheets, log and effects as exported. 400 for a bad export.",
    )
    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        campaign = campaign_import(user=request.user, data=data.validated_data["export"])
        membership = access_campaign(request.user, campaign.pk)
        return Response(campaign_output(membership), status=status.HTTP_201_CREATED)
