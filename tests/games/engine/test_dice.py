from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import dice

SEED = "a" * 64


def test_the_same_seed_sequence_and_purpose_give_the_same_draw() -> None:
    first = dice.Dice(SEED, 7)
    second = dice.Dice(SEED, 7)
    assert first.below("shrink", 37) == second.below("shrink", 37)
    assert first.rolls == second.rolls


def test_sequence_and_purpose_each_change_the_draw() -> None:
    draws = {
        (seq, purpose): dice.Dice(SEED, seq).sample(purpose, list(range(1000)), 3)
        for seq in (1, 2)
        for purpose in ("a", "b")
    }
    assert len({tuple(v) for v in draws.values()}) == 4


def test_one_purpose_is_drawn_once_per_event() -> None:
    roller = dice.Dice(SEED, 1)
    roller.below("x", 6)
    with pytest.raises(ValueError, match="already drawn"):
        roller.below("x", 6)


def test_a_six_sided_die_is_roughly_uniform() -> None:
    counts = Counter(dice.Dice(SEED, seq).below("d6", 6) for seq in range(6000))
    assert set(counts) == set(range(6))
    assert all(850 < n < 1150 for n in counts.values()), counts


@given(n=st.integers(1, 60), k=st.integers(0, 60), seq=st.integers(0, 10**9))
def test_a_sample_is_k_distinct_options(n: int, k: int, seq: int) -> None:
    k = min(k, n)
    picked = dice.Dice(SEED, seq).sample("pick", list(range(n)), k)
    assert len(picked) == k == len(set(picked))
    assert all(0 <= p < n for p in picked)


def test_a_logged_roll_verifies_and_a_tampered_one_does_not() -> None:
    roller = dice.Dice(SEED, 12)
    roller.sample("places", list(range(37)), 5)
    (roll,) = roller.rolls
    assert dice.roll_verify(SEED, dice.Roll.from_json(roll.to_json()))
    tampered = dice.Roll(roll.seq, roll.purpose, roll.kind, roll.n, roll.k, (0, 1, 2, 3, 4))
    assert roll.result != tampered.result
    assert not dice.roll_verify(SEED, tampered)
    assert not dice.roll_verify("b" * 64, roll)


def test_the_published_hash_is_sha256_of_the_seed() -> None:
    assert (
        dice.seed_hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )
    assert len(dice.seed_new()) == 64
