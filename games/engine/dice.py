"""Fair dice: every draw derives from (secret seed, event sequence, purpose).

The derivation is HMAC-SHA256 keyed by the seed, so anyone holding the revealed seed can
recompute every logged roll with a few lines in any language; it does not depend on the
implementation of Python's ``random`` module. Uniform integers use rejection sampling, so no
value is favoured.

Engines that need many draws take a ``random.Random`` from :func:`rng`; those draws are checked
by replaying the game. Draws the shell makes directly (shrinking places, vote rewards, ...) are
recorded as :class:`Roll` and checked one by one by ``manage.py verify_game``.
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, TypeVar

T = TypeVar("T")

RollKind = Literal["below", "sample"]


def seed_new() -> str:
    """A fresh secret seed: 256 bits, hex."""
    return secrets.token_hex(32)


def seed_hash(seed: str) -> str:
    """What is published at the start: SHA-256 of the seed's UTF-8 text, hex."""
    return hashlib.sha256(seed.encode()).hexdigest()


def _block(seed: str, seq: int, purpose: str, counter: int) -> int:
    message = f"{seq}|{purpose}|{counter}".encode()
    return int.from_bytes(hmac.new(seed.encode(), message, hashlib.sha256).digest(), "big")


def rng(seed: str, seq: int, purpose: str) -> random.Random:
    """A ``random.Random`` for an engine call, seeded from (seed, seq, purpose)."""
    return random.Random(_block(seed, seq, purpose, 0))


@dataclass(frozen=True, slots=True)
class Roll:
    """One logged draw: enough to recompute it from the seed."""

    seq: int
    purpose: str
    kind: RollKind
    n: int
    k: int
    result: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["result"] = list(self.result)
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Roll:
        return cls(
            seq=int(data["seq"]),
            purpose=str(data["purpose"]),
            kind=data["kind"],
            n=int(data["n"]),
            k=int(data["k"]),
            result=tuple(int(x) for x in data["result"]),
        )


class _Stream:
    """Uniform integers from the HMAC blocks of one (seed, seq, purpose)."""

    __slots__ = ("_counter", "_purpose", "_seed", "_seq")

    def __init__(self, seed: str, seq: int, purpose: str) -> None:
        self._seed, self._seq, self._purpose = seed, seq, purpose
        self._counter = 0

    def below(self, n: int) -> int:
        if n <= 0:
            raise ValueError("n must be positive")
        space = 1 << 256
        limit = space - space % n
        while True:
            value = _block(self._seed, self._seq, self._purpose, self._counter)
            self._counter += 1
            if value < limit:
                return value % n


def _draw(seed: str, seq: int, purpose: str, kind: RollKind, n: int, k: int) -> tuple[int, ...]:
    stream = _Stream(seed, seq, purpose)
    if kind == "below":
        return (stream.below(n),)
    if not 0 <= k <= n:
        raise ValueError("cannot draw k of n")
    # Partial Fisher-Yates: k distinct indices of range(n), in draw order.
    pool = list(range(n))
    for i in range(k):
        j = i + stream.below(n - i)
        pool[i], pool[j] = pool[j], pool[i]
    return tuple(pool[:k])


@dataclass(slots=True)
class Dice:
    """The director's dice for one logged event: every draw is recorded."""

    seed: str
    seq: int
    rolls: list[Roll] = field(default_factory=list)

    def _roll(self, purpose: str, kind: RollKind, n: int, k: int) -> tuple[int, ...]:
        if any(r.purpose == purpose for r in self.rolls):
            raise ValueError(f"purpose {purpose!r} already drawn for this event")
        result = _draw(self.seed, self.seq, purpose, kind, n, k)
        self.rolls.append(Roll(self.seq, purpose, kind, n, k, result))
        return result

    def below(self, purpose: str, n: int) -> int:
        return self._roll(purpose, "below", n, 1)[0]

    def choice(self, purpose: str, options: Sequence[T]) -> T:
        return options[self.below(purpose, len(options))]

    def sample(self, purpose: str, options: Sequence[T], k: int) -> list[T]:
        return [options[i] for i in self._roll(purpose, "sample", len(options), k)]

    def shuffled(self, purpose: str, options: Sequence[T]) -> list[T]:
        return self.sample(purpose, options, len(options))


def roll_verify(seed: str, roll: Roll) -> bool:
    """Does the logged roll match what the seed gives?"""
    try:
        return _draw(seed, roll.seq, roll.purpose, roll.kind, roll.n, roll.k) == roll.result
    except ValueError:
        return False
