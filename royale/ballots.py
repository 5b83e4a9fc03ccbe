"""The royale kind's ballot weights for the forum's vote thread (RULINGS 13): 1 + the vote
values of the items each character held at the end of the previous night.

The engine keeps them in ``flags["vote_weights"]`` from the night's close, which already holds
the next day's weights while the night's day is still the state's day; so a day's weights are
read where the flags got them from, the night's ``vote_weights`` event in the log.
"""

from __future__ import annotations

from fractions import Fraction

from games.engine.ballots import Adjust, VoteModifiers, register_vote_weights
from games.models import Event


class RoyaleVoteWeights:
    def modifiers(self, game_id: int, day: int) -> VoteModifiers:
        snapshot = (
            Event.objects.filter(game_id=game_id, kind="vote_weights", payload__day=day - 1)
            .order_by("-seq")
            .values_list("payload", flat=True)
            .first()
        )
        weights = (snapshot or {}).get("weights", {})
        why = f"1 + 第{day - 1}夜结束时所持道具的票数"
        # A character missing from the snapshot holds the base vote, 1 (both rulesets).
        return VoteModifiers(
            weights={int(cid): Adjust(Fraction(w), why) for cid, w in weights.items()}
        )


register_vote_weights("royale", RoyaleVoteWeights())
