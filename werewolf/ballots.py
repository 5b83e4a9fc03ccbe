"""The role games' ballot weights for the forum's vote thread: the engine's own
``vote_modifiers`` (警长 1.5 [带队], the 白痴 after 装傻 neither votes nor can be voted, the
高僧 as the holder of the tie rule's role). A game the engine runs publishes its day's tally at
关门, the count the engine settled (``werewolf.services.werewolf_transition``), so the beat
task's later recount leaves its days alone."""

from __future__ import annotations

from games.ballots import register_published_at_close
from games.engine.ballots import VoteModifiers, register_vote_weights
from games.models import Game
from werewolf.engine import GameState, vote_modifiers
from werewolf.models import WerewolfGame


class WerewolfVoteWeights:
    def modifiers(self, game_id: int, day: int) -> VoteModifiers:
        data = WerewolfGame.objects.filter(pk=game_id).values_list("state", flat=True).first()
        if data is None:  # not dealt yet: one vote each
            return VoteModifiers()
        return vote_modifiers(GameState.from_json(data), day)


register_vote_weights("werewolf", WerewolfVoteWeights())


def _engine_runs(game: Game) -> bool:
    return WerewolfGame.objects.filter(pk=game.pk).exists()


register_published_at_close("werewolf", _engine_runs)
