"""Concurrent actions on one character never lose an update (row locks, PostgreSQL)."""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection

from campaigns.models import Campaign, Membership
from characters.models import Character
from core.errors import ResolutionConflict
from rules.log.models import Resolution
from rules.play.services import character_create, resolution_create_action

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


@pytest.mark.django_db(transaction=True)
def test_concurrent_battle_steps_and_injuries_never_deadlock_or_skip(
    make_campaign, referee, player, make_unit
) -> None:
    """Referees moving a warband battle on while units are hurt: every step counts once,
    recoveries and injuries interleave under the lock order (campaign, battle, units in
    pk order) with no deadlock and no lost update (rulings WB-3, WB-6)."""
    from rules.battles.models import Battle
    from rules.battles.services import battle_advance, battle_begin

    skirmish = make_campaign("warband")
    units = [
        make_unit(skirmish, player, f"{band} {n}", band)
        for band in ("Red", "Blue", "Grey")
        for n in range(3)
    ]
    for index, unit in enumerate(units):  # stunned units that upkeeps will recover
        resolution_create_action(
            character_id=unit.pk,
            actor=referee,
            by_referee=True,
            action="injury_check",
            params={"attack_roll": 15 + index % 2, "attack": "ranged"},
        )
    starts: list[str] = []

    def start(_: int) -> None:
        try:
            battle_begin(campaign_id=skirmish.pk, warbands=["Red", "Blue", "Grey"], actor=referee)
            starts.append("started")
        except ResolutionConflict:
            starts.append("conflict")

    assert _run_in_threads(start, THREADS) == []
    assert sorted(starts) == ["conflict"] * (THREADS - 1) + ["started"]

    def step(index: int) -> None:
        for _ in range(2):
            battle_advance(campaign_id=skirmish.pk, actor=referee)
            if index % 2:  # half the threads also hurt a unit between steps
                resolution_create_action(
                    character_id=units[index].pk,
                    actor=referee,
                    by_referee=True,
                    action="injury_check",
                    params={"attack_roll": 3, "attack": "spell"},
                )

    assert _run_in_threads(step, THREADS) == []
    battle = Battle.objects.get(campaign=skirmish)
    # 16 steps through 15 phases a turn (5 x 3 warbands) from turn 1, Red, upkeep:
    assert (battle.turn, battle.active, battle.phase) == (2, 0, "move")
    for unit in units:
        versions = list(
            Resolution.objects.filter(character=unit)
            .order_by("version")
            .values_list("version", flat=True)
        )
        assert versions == list(range(1, len(versions) + 1))
        assert Character.objects.get(pk=unit.pk).version == len(versions)


@pytest.mark.django_db(transaction=True)
def test_archiving_while_players_act_leaves_every_die_with_the_revealed_seed(
    campaign: Campaign, player
) -> None:
    """Archiving locks the campaign row as every action does: each action lands wholly
    before it (its dice drawn with the seed it reveals) or is refused after it (409)."""
    from campaigns.models import RevealedSeed
    from rules.play.dice_rotation import campaign_archive

    Campaign.objects.filter(pk=campaign.pk).update(actions_move_clock=False)
    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hit_dice": 3})
    refused: list[int] = []

    def act_or_archive(index: int) -> None:
        if index == THREADS // 2:
            campaign_archive(campaign_id=campaign.pk)
            return
        for _ in range(HITS_PER_THREAD):
            try:
                resolution_create_action(
                    character_id=aldo.pk,
                    actor=player,
                    by_referee=False,
                    action="long_rest",
                    params={},
                )
            except ResolutionConflict:
                refused.append(index)

    assert _run_in_threads(act_or_archive, THREADS) == []
    campaign.refresh_from_db()
    revealed = RevealedSeed.objects.get(campaign=campaign)
    rests = Resolution.objects.filter(character=aldo, action="long_rest")
    assert rests.count() + len(refused) == (THREADS - 1) * HITS_PER_THREAD
    archived_at = campaign.archived_at
    assert archived_at is not None
    assert all(r.created_at <= archived_at for r in rests)
    logged = Resolution.objects.filter(campaign=campaign)  # the new character's dice too
    last_end = max(r.dice_counter_end for r in logged)
    assert revealed.last_counter == last_end - 1  # every die drawn was the old seed's
    assert campaign.dice_seed_first_counter == last_end == campaign.dice_counter


@pytest.mark.django_db(transaction=True)
def test_one_statement_locks_the_campaign_before_the_character(campaign: Campaign, player) -> None:
    """lock_character locks both rows in one statement; the campaign must be held first
    (the lock order of rules/play/services.py). While another transaction holds only the
    character, a waiting lock_character must already hold the campaign: were the order
    reversed, it would hold nothing and a third writer could take the campaign, the
    cross that deadlocks two writers."""
    from django.db import connections, transaction
    from django.db.utils import OperationalError

    from rules.play.services import lock_character

    membership = Membership.objects.get(campaign=campaign, user=player)
    aldo = character_create(membership=membership, name="Aldo", sheet={"level": 3, "hp": 5})
    holder_ready = threading.Event()
    release = threading.Event()
    locked = threading.Event()

    def hold_character_only() -> None:
        try:
            with transaction.atomic():
                Character.objects.select_for_update().get(pk=aldo.pk)
                holder_ready.set()
                release.wait(timeout=30)
        finally:
            connection.close()

    waiter_pid: list[int] = []

    def lock_both() -> None:
        try:
            with transaction.atomic():
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_backend_pid()")
                    waiter_pid.append(cursor.fetchone()[0])
                lock_character(aldo.pk)
                locked.set()
        finally:
            connection.close()

    holder = threading.Thread(target=hold_character_only)
    holder.start()
    assert holder_ready.wait(timeout=30)
    waiter = threading.Thread(target=lock_both)
    waiter.start()
    try:
        # The waiter blocks on the character; by then it must hold the campaign.
        probe = connections.create_connection("default")
        try:
            # up to 30 s for the waiter to block (a loaded machine starts its thread late;
            # the loop ends as soon as it blocks). Only the waiter's own backend counts:
            # pg_locks is the whole server's, and another test worker's waits are in it.
            for _ in range(600):
                if waiter_pid:
                    with probe.cursor() as cursor:
                        cursor.execute("SELECT cardinality(pg_blocking_pids(%s))", [waiter_pid[0]])
                        if cursor.fetchone()[0]:
                            break
                threading.Event().wait(0.05)
            assert not locked.is_set()
            with (
                pytest.raises(OperationalError, match="could not obtain lock"),
                probe.cursor() as cursor,
            ):
                cursor.execute("BEGIN")
                cursor.execute(
                    "SELECT id FROM campaigns_campaign WHERE id = %s FOR UPDATE NOWAIT",
                    [campaign.pk],
                )
        finally:
            probe.close()
    finally:
        release.set()
        holder.join(timeout=30)
        waiter.join(timeout=30)
    assert locked.is_set()


@pytest.mark.django_db(transaction=True)
def test_referees_choosing_who_plays_at_once_with_one_version_act_once(
    campaign: Campaign, referee, player, other_player
) -> None:
    """Issue 29: who plays a character is a compare-and-set under the row locks: of
    every change sent for the same version, one lands, the rest are 409s."""
    from rules.play.editing import character_owner_set

    membership = Membership.objects.get(campaign=campaign, user=referee)
    mara = character_create(membership=membership, name="Mara", sheet={"hp": 8})
    version = mara.version
    refused: list[int] = []

    def hand_over(index: int) -> None:
        try:
            character_owner_set(
                character_id=mara.pk,
                actor=referee,
                player="player" if index % 2 else "other_player",
                expected_version=version,
            )
        except ResolutionConflict:
            refused.append(index)

    assert _run_in_threads(hand_over, THREADS) == []
    assert len(refused) == THREADS - 1
    edits = Resolution.objects.filter(character=mara, action="owner")
    assert edits.count() == 1
    [edit] = edits
    assert Character.objects.get(pk=mara.pk).owner_id == edit.params["to"]["id"]
    assert Character.objects.get(pk=mara.pk).version == version + 1
