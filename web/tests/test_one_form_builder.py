"""One form builder for the character forms and the campaign options form, and one way
to tell htmx requests (django-htmx) for every view."""

from __future__ import annotations

import re
from pathlib import Path

from django.conf import settings
from django.http import QueryDict
from django.test import RequestFactory

from rules.engine.registry import all_rulesets, get_ruleset
from web.forms import parse_params
from web.htmx import is_htmx
from web.views.campaigns import OPTION_PREFIX, option_fields

ROOT = Path(__file__).resolve().parents[2]


def test_every_option_gets_a_control_from_the_options_schema_and_reads_back():
    for ruleset in all_rulesets():
        fields = option_fields(ruleset)
        assert [f.key for f in fields] == list(ruleset.options)
        for control in fields:
            schema = ruleset.options_schema["properties"][control.key]
            assert control.label == schema["title"]
            assert control.name == OPTION_PREFIX + control.key
            assert "Default:" in control.help
        posted = QueryDict(mutable=True)
        for control in fields:
            if control.kind == "multiselect":  # the options chosen, as a browser posts them
                posted.setlist(control.name, list(control.value))
            elif control.kind != "checkbox" or control.value:
                posted[control.name] = "on" if control.kind == "checkbox" else control.value
        assert ruleset.check_options(parse_params(fields, posted)) == dict(ruleset.options)


def test_a_set_of_known_words_is_picked_in_a_multi_select():
    """Issue 29: a warband turn's phases are picked (a multi-select in their order), with
    more typed beside, placed before the last; words with commas are read too."""
    warband = get_ruleset("warband")
    (phases,) = [f for f in option_fields(warband) if f.key == "phases"]
    assert phases.kind == "multiselect"
    assert [value for value, _ in phases.choices] == ["upkeep", "move", "ranged", "melee", "end"]
    picked = QueryDict("opt.phases=upkeep&opt.phases=melee&opt.phases=end&opt.phases.more=shoot")
    assert parse_params([phases], picked) == {"phases": ["upkeep", "melee", "shoot", "end"]}
    posted = QueryDict("opt.phases=upkeep,+shoot+,end")
    assert parse_params([phases], posted) == {"phases": ["upkeep", "shoot", "end"]}
    # a phase of the campaign's own stays among the choices, in its place
    (own,) = [
        f
        for f in option_fields(warband, {"phases": ["upkeep", "shoot", "end"]})
        if f.key == "phases"
    ]
    assert [v for v, _ in own.choices] == ["upkeep", "move", "ranged", "melee", "shoot", "end"]
    assert own.value == ["upkeep", "shoot", "end"]


def test_htmx_requests_are_told_apart_by_django_htmx_alone():
    assert "django_htmx.middleware.HtmxMiddleware" in settings.MIDDLEWARE
    factory = RequestFactory()
    assert is_htmx(factory.get("/", headers={"HX-Request": "true"}))
    assert not is_htmx(factory.get("/"))
    readers = [
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "web").rglob("*.py")
        if "tests" not in path.relative_to(ROOT).parts  # the pages' tests send the header
        and re.search(r"headers\.get\(\s*.HX-Request|HTTP_HX_REQUEST", path.read_text("utf-8"))
    ]
    assert readers == []  # no view reads the header itself


def test_the_params_are_read_by_a_django_form_one_field_per_control():
    from django import forms

    from web.forms import ParamsForm, schema_fields

    ruleset = get_ruleset("old_school")
    controls = schema_fields(ruleset.action("ability_loss").params, ruleset="old_school")
    form = ParamsForm(controls, QueryDict("p.ability=strength&p.amount=two"))
    assert isinstance(form, forms.Form) and not form.is_valid()
    assert form.errors["p.amount"] == ["Amount: enter a whole number, not 'two'"]
    form = ParamsForm(controls, QueryDict("p.ability=strength&p.amount=2"))
    assert form.is_valid()
    assert form.cleaned_data["params"] == {"ability": "strength", "amount": 2, "permanent": False}
