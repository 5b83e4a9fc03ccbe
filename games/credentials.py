"""Character passwords and bookmark links: generated, shown once, stored as keyed digests."""

from __future__ import annotations

import hashlib
import hmac
import math
import secrets
from typing import Final

# Lower-case letters and digits without look-alikes (0/o, 1/l/i), so a password read off a
# screen or a forum PM can be typed on a phone.
ALPHABET: Final = "23456789abcdefghjkmnpqrstuvwxyz"
GROUPS: Final = 4
GROUP_SIZE: Final = 6
PASSWORD_BITS: Final = GROUPS * GROUP_SIZE * math.log2(len(ALPHABET))
# Anything longer than this cannot be a password of ours; refuse it before hashing.
MAX_INPUT: Final = 128


def password_generate() -> str:
    groups = ("".join(secrets.choice(ALPHABET) for _ in range(GROUP_SIZE)) for _ in range(GROUPS))
    return "-".join(groups)


def password_normalize(text: str) -> str:
    """What the player typed, without the separators, spaces and case they may have changed."""
    return "".join(ch for ch in text.lower() if ch not in "- \t\r\n\u3000－—")


def link_token_generate() -> str:
    return secrets.token_urlsafe(24)


def digest(*, key: str, purpose: str, secret: str) -> str:
    return hmac.new(key.encode(), f"{purpose}:{secret}".encode(), hashlib.sha256).hexdigest()
