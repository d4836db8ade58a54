"""Concurrent actions on one character never lose an update (row locks, PostgreSQL)."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection

from campaigns.models import Campaign, Membership
from characters.models import Character
from core.errors import ResolutionConflict
from rules.models import Resolution
from rules.services import character_create, resolution_create_action

pytestmark = pytest.mark.skipif(
    connection.vendor != "postgresql",
    reason="row-lock concurrency needs PostgreSQL (CI sets DATABASE_URL); SQLite locks "
    "the whole database instead",
)

THREADS = 8
HITS_PER_THREAD = 5


def _run_in_threads(target, count):
    barrier = threading.Barrier(count)
    errors: list[BaseException] = []

    def worker(index: int) -> None:
        try:
            barrier.wait()
            target(index)
        except BaseException as error:  # collected and re-raised in the test
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return errors


@pytest.mark.django_db(transaction=True)
def test_concurrent_damage_is_never_lost(campaign: Campaign, player) -> None:
    membership = Membership.objects.get(campaign=campaign, user=player)
    total = THREADS * HITS_PER_THREAD
    # Enough hp that no hit overflows: every hit is exactly one hp.
    aldo = character_create(
        membership=membership, name="Aldo", sheet={"level": 20, "hit_dice": 20, "hp": 100}
    )

    def hit(_: int) -> None:
        for _ in range(HITS_PER_THREAD):
            resolution_create_action(
                character_id=aldo.pk,
                actor=player,
                by_referee=False,
                action="damage",
                params={"amount": 1},
            )

    assert _run_in_threads(hit, THREADS) == []
    aldo.refresh_from_db()
    assert aldo.sheet["hp"] == 100 - total
    assert aldo.version == 1 + total
    versions = list(
        Resolution.objects.filter(character=aldo)
        .order_by("version")
        .values_list("version", flat=True)
    )
    assert versions == list(range(1, total + 2))


@pytest.mark.django_db(transaction=True)
def test_concurrent_compare_and_set_lets_exactly_one_win(campaign: Campaign, player) -> None:
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(
        membership=membership, name="Aldo", sheet={"level": 5, "hit_dice": 5, "hp": 20}
    )
    outcomes: list[str] = []

    def hit(_: int) -> None:
        try:
            resolution_create_action(
                character_id=aldo.pk,
                actor=player,
                by_referee=False,
                action="damage",
                params={"amount": 2},
                expected_version=1,
            )
            outcomes.append("won")
        except ResolutionConflict:
            outcomes.append("conflict")

    assert _run_in_threads(hit, THREADS) == []
    assert sorted(outcomes) == ["conflict"] * (THREADS - 1) + ["won"]
    aldo = Character.objects.get(pk=aldo.pk)
    assert (aldo.sheet["hp"], aldo.version) == (18, 2)
