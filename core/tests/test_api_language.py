"""The API's own sentences in the request's language (issue 37, docs/translating.md).

A sample of error answers asked with ``Accept-Language: de`` and ``es``: a 404, a 409 of a
service, a 400 of a service's refusal, a 403, field messages and the JSON 404 of an
unknown path. Each answer says its language in ``Content-Language``; its keys (``detail``,
a field's name) and its status are the English answer's, and only the sentences change.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.utils import translation
from rest_framework.test import APIClient

from config.exceptions import Conflict, api_exception_handler
from core.errors import error_text
from rules.engine.interface import RuleError
from rules.engine.words import say
from tests.test_translations import compiled  # noqa: F401 - the catalogues, compiled

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("compiled")]

Call = Callable[[APIClient], Any]


@pytest.fixture
def samples(make_campaign, make_unit, referee, player) -> dict[str, tuple[Any, Call]]:
    """name -> (who asks, the request); each answers an error of ours."""
    campaign = make_campaign("hit_dice")
    skirmish = make_campaign("warband")
    make_unit(skirmish, referee, "Red 1", warband="Red")
    return {
        "404": (referee, lambda c: c.get("/api/v1/campaigns/999999/")),
        "409": (referee, lambda c: c.post(f"/api/v1/campaigns/{campaign.pk}/unarchive/")),
        "400": (
            referee,
            lambda c: c.post(
                f"/api/v1/campaigns/{skirmish.pk}/battle/",
                {"warbands": ["Red", "Red"]},
                format="json",
            ),
        ),
        "403": (
            player,
            lambda c: c.post(f"/api/v1/campaigns/{campaign.pk}/invites/", {}, format="json"),
        ),
        "field": (
            player,
            lambda c: c.post("/api/v1/campaigns/join/", {"code": "nope"}, format="json"),
        ),
        "query": (
            referee,
            lambda c: c.get(f"/api/v1/campaigns/{campaign.pk}/resolutions/?page_size=0"),
        ),
        "path": (None, lambda c: c.get("/api/v1/no-such-thing/")),
    }


EXPECTED: dict[str, dict[str, dict[str, Any]]] = {
    "404": {
        "en": {"detail": "no such campaign"},
        "de": {"detail": "keine solche Kampagne"},
        "es": {"detail": "no existe esa campaña"},
    },
    "409": {
        "en": {"detail": "The campaign A hit_dice campaign is not archived."},
        "de": {"detail": "Die Kampagne A hit_dice campaign ist nicht archiviert."},
        "es": {"detail": "La campaña A hit_dice campaign no está archivada."},
    },
    "400": {
        "en": {"detail": "warbands: each warband takes its turn once; a name appears twice"},
        "de": {
            "detail": "Kriegerscharen: jede Kriegerschar ist einmal am Zug; ein Name kommt "
            "doppelt vor"
        },
        "es": {"detail": "bandas: cada banda juega su turno una vez; un nombre aparece dos veces"},
    },
    "403": {
        "en": {"detail": "only the campaign's referee may do this"},
        "de": {"detail": "nur die Spielleitung der Kampagne darf das"},
        "es": {"detail": "solo el director de juego de la campaña puede hacer esto"},
    },
    "field": {
        "en": {"code": ["no campaign has this invite code"]},
        "de": {"code": ["keine Kampagne hat diesen Einladungscode"]},
        "es": {"code": ["ninguna campaña tiene este código de invitación"]},
    },
    "query": {
        "en": {"page_size": ["a whole number from 1"]},
        "de": {"page_size": ["eine ganze Zahl ab 1"]},
        "es": {"page_size": ["un número entero desde 1"]},
    },
    "path": {
        "en": {
            "detail": "No API endpoint at /api/v1/no-such-thing/: the endpoints are listed at "
            "/api/schema/."
        },
        "de": {
            "detail": "Kein API-Endpunkt unter /api/v1/no-such-thing/: Die Endpunkte stehen "
            "unter /api/schema/."
        },
        "es": {
            "detail": "No hay ningún endpoint de la API en /api/v1/no-such-thing/: los "
            "endpoints están listados en /api/schema/."
        },
    },
}
STATUS = {"404": 404, "409": 409, "400": 400, "403": 403, "field": 400, "query": 400, "path": 404}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_an_error_answer_speaks_the_requests_language(name, samples, client_for):
    who, call = samples[name]
    for language, body in EXPECTED[name].items():
        client = client_for(who)
        client.credentials(HTTP_ACCEPT_LANGUAGE=language)
        response = call(client)
        assert response.status_code == STATUS[name], (language, response.content)
        assert response["Content-Language"] == language
        # the keys (and a field's name) are the English answer's; the sentences are not
        assert response.json() == body, language


def test_a_conflict_without_words_of_its_own_says_its_default_translated():
    with translation.override("de"):
        response = api_exception_handler(Conflict(), {})
    assert response is not None and response.status_code == 409
    assert response.data == {
        "detail": "Die Anfrage widerspricht dem aktuellen Zustand des Charakters."
    }
    assert response.data["detail"].code == "conflict"  # the code stays English


def test_an_engine_message_is_said_where_the_detail_is_made():
    """A refusal of the engine names its message (rules.engine.words): the answer says it
    in the active language, the same error in English elsewhere."""
    error = RuleError(say("a whole number from 1"))
    assert str(error) == "a whole number from 1"
    with translation.override("es"):
        assert error_text(error) == "un número entero desde 1"
        response = api_exception_handler(error, {})
    assert response is not None and response.status_code == 400
    assert response.data == {"detail": "un número entero desde 1"}
    assert response.data["detail"].code == "invalid"
    assert error_text(RuleError("typed as it is")) == "typed as it is"
