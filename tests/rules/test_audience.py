"""The audience policy: every viewer against every creature and every roll, enumerated."""

from __future__ import annotations

import itertools

from bot.rules.audience import (
    ANYONE,
    Creature,
    Viewer,
    Visibility,
    applies_hit,
    changes_public,
    public_hit_points,
    public_numbers,
    reader,
    sees_all,
    sees_hit_points,
    sees_numbers,
    sees_roll,
    visibility,
)

OWNER, OTHER = 11, 22


def test_numbers_are_hidden_only_by_secret_and_open_to_the_owner_and_the_game_masters() -> None:
    for secret, hidden_hp, user, gm in itertools.product((False, True), (False, True), (OWNER, OTHER), (False, True)):
        creature = Creature(OWNER, secret=secret, hidden_hp=hidden_hp)
        viewer = Viewer(user, game_master=gm)
        assert sees_numbers(viewer, creature) == (not secret or user == OWNER or gm)
        assert sees_hit_points(viewer, creature) == ((not secret and not hidden_hp) or user == OWNER or gm)


def test_the_channel_sees_what_anyone_may() -> None:
    assert public_numbers(Creature(OWNER)) and public_hit_points(Creature(OWNER))
    assert public_numbers(Creature(OWNER, hidden_hp=True)) and not public_hit_points(Creature(OWNER, hidden_hp=True))
    assert not public_numbers(Creature(OWNER, secret=True)) and not public_hit_points(Creature(OWNER, secret=True))
    # Nobody's creature (a quick creature whose adder is unknown) is the game masters' alone when hidden.
    assert not sees_hit_points(Viewer(OTHER), Creature(None, hidden_hp=True))
    assert sees_hit_points(Viewer(OTHER, game_master=True), Creature(None, hidden_hp=True))
    assert not sees_numbers(ANYONE, Creature(0, secret=True))  # id 0 is nobody, not the channel's own


def test_a_roll_is_seen_by_its_roller_and_a_hidden_one_by_the_game_masters() -> None:
    for shown, user, gm in itertools.product(Visibility, (OWNER, OTHER), (False, True)):
        seen = sees_roll(Viewer(user, game_master=gm), OWNER, shown)
        expected = shown is Visibility.PUBLIC or user == OWNER or (shown is Visibility.HIDDEN and gm)
        assert seen == expected, (shown, user, gm)


def test_only_a_public_roll_changes_what_the_channel_sees() -> None:
    assert visibility(private=False, hidden=False) is Visibility.PUBLIC
    assert visibility(private=True, hidden=False) is Visibility.PRIVATE
    assert visibility(private=True, hidden=True) is Visibility.HIDDEN
    assert visibility(private=False, hidden=True) is Visibility.HIDDEN
    assert [changes_public(v) for v in Visibility] == [True, False, False]


def test_a_sealed_fair_roll_opens_only_for_who_sees_every_creature_it_read() -> None:
    secret, hidden = Creature(OWNER, secret=True), Creature(OTHER, hidden_hp=True)
    assert sees_all(ANYONE, ()) and sees_all(ANYONE, (Creature(OWNER),))
    assert not sees_all(ANYONE, (secret,)) and not sees_all(ANYONE, (hidden,))
    assert sees_all(Viewer(OWNER), (secret,)) and not sees_all(Viewer(OWNER), (secret, hidden))
    assert not sees_all(Viewer(OTHER), (secret, hidden)) and sees_all(Viewer(OTHER), (hidden,))
    assert sees_all(Viewer(33, game_master=True), (secret, hidden))


def test_a_waiting_hit_is_applied_by_a_private_roll_s_roller_or_a_game_master_and_a_hidden_one_s_game_master() -> None:
    """#25 item 6: a hidden or private attack on a fight changes nothing the table sees until someone applies it."""
    for shown, user, gm in itertools.product(Visibility, (OWNER, OTHER, None), (False, True)):
        viewer = Viewer(user, game_master=gm)
        expected = shown is Visibility.PUBLIC or gm or (shown is Visibility.PRIVATE and user == OWNER)
        assert applies_hit(viewer, OWNER, shown) == expected, (shown, user, gm)
        assert changes_public(shown) == (shown is Visibility.PUBLIC)


def test_a_private_answer_is_read_by_its_asker_and_any_other_by_the_channel() -> None:
    for user, gm in itertools.product((OWNER, OTHER), (False, True)):
        asker = Viewer(user, game_master=gm)
        assert reader(asker, private=True) == asker
        assert reader(asker, private=False) == ANYONE
    # What the channel reads shows no secret, whoever asked for it.
    assert not sees_numbers(reader(Viewer(OWNER, game_master=True), private=False), Creature(OWNER, secret=True))
