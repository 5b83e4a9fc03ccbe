"""No hidden fact of [099] reaches a player: a scripted game over real HTTP, real websockets
and the portal's HTML, through the auction, a night with 长生 firing and a director's override
(changed feedback, a private note), the forced 选举 forfeited (a 5(3) card with its secret
reason), a vote reminder, a portal-ballot day, a red card by day and one by night with its
faction's loss. Then everything each player can read is searched for what it may not know.

Hidden until the end: every living player's role and a night death's role (夜晚出局的角色不公示
其身份), night submissions and their targets (but the actor's own and the wolves' team picks),
the seer's results, 通灵, potions, 守卫, 爱慕, 长生, the trace, the override (reason, the
engine's feedback it replaced) and a note to someone else, the auction, ballots before the
close, card proposals, the 5(3) reason, directors' and staff's reasons and notes."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async

from games import card_services
from games import services as game_services
from games.models import Card, Character, Game
from tests.conftest import bj
from tests.werewolf.engine.support import SEATS
from tests.werewolf.players import DIRECTORS_ONLY, Reader, dicts, players, werewolf_game
from werewolf import services, store
from werewolf.engine import get_ruleset

pytestmark = pytest.mark.django_db(transaction=True)

RULES = get_ruleset("arknights_099")
NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
NIGHT_2 = bj(1, 21, 1)
ROLE_NAME = {key: role.name for key, role in RULES.roles.items()}
FACTION_NAMES = sorted((f.name for f in RULES.factions.values()), key=len, reverse=True)
WOLVES = (1, 2, 3, 4)

# Words that only the directors (or the staff) ever wrote.
OVERRIDE_REASON = "覆盖理由OVR7731"
NOTE = "导演私信NOTE5521：今晚你很安全"
STAFF_REASON = "审核理由STF9034"
FACTION_REASON = "判负理由FAC4410"
CARD_NOTE = "判罚备注CRD2207"
# Night skills whose very name tells what its holder did (or that it exists): only their
# holders (and the wolves for their own team's) may ever read them.
SECRET_SKILLS = {
    "预言": {6},
    "守卫": {8},
    "爱慕": {9},
    "毒药": {7},
    "救药": {7},
    "通灵": {7},
    "长生": {10},
    "选举": set(WOLVES),
    "主刀狼": set(WOLVES),
}


def roles_named(text: str) -> set[str]:
    """The role names ``text`` mentions, faction names taken out first (村民 ⊂ 村民阵营,
    狼人 ⊂ 狼人阵营, 白眼狼 ⊂ 白眼狼阵营)."""
    for faction in FACTION_NAMES:
        text = text.replace(faction, "")
    return {name for name in ROLE_NAME.values() if name in text}


def own_card_words(text: str, role: str) -> str:
    """``text`` without the rule post's words its own role card quotes (the 村长's 长生 reads
    当村长因投票、毒药、最后一枪出局时…: the post's text, no secret of the witch's)."""
    rules = RULES.roles[role]
    for words in [RULES.skills[s].text for s in rules.skills] + [rules.note]:
        if words:
            text = text.replace(words, "")
    return text


def code_53(text: str) -> bool:
    """The 5(3) code as a card reason would show it."""
    return re.search(r"(?<![\d.])5\.3(?![\d])", text) is not None or "5（3）" in text


def sync(fn: Callable[..., Any]) -> Callable[..., Any]:
    return database_sync_to_async(fn)


async def drained(readers: dict[int, Reader]) -> None:
    for r in readers.values():
        await r.drain(timeout=0.05)


def _red_card(game: Game, director: Any, staff: Any, seat_id: int, *, loses: bool) -> None:
    card = card_services.card_add(
        game=game,
        director=director,
        character=Character.objects.get(pk=seat_id),
        color="red",
        reason="11.1",
        note=CARD_NOTE,
    )
    card_services.cards_review(cards=[card], reviewer=staff, confirm=True, reason=STAFF_REASON)
    card.refresh_from_db()
    card_services.card_faction_decide(
        card=card, director=director, loses=loses, reason=FACTION_REASON
    )


def _ballots_before_the_close(readers: dict[int, Reader], ids: dict[int, int]) -> None:
    """Portal ballots (day 1 has no forum thread): the voters' own, nobody else's."""
    for seat, target in ((15, 8), (16, 8), (17, 8), (18, 1), (12, 8), (6, 2)):
        response = readers[seat].player.act("vote", target=ids[target])
        assert response.status_code == 200, response.content
        readers[seat].json.append(response.json())
    for seat, r in readers.items():
        r.read_everything()
        if seat in (15, 16, 17, 18, 12, 6):
            continue
        assert "投票给" not in r.text(), seat  # nobody else's ballot is shown
        assert r.player.me()["vote"]["mine"] is None


async def test_nothing_hidden_reaches_a_player_on_any_surface(director: Any, staff: Any) -> None:
    game, ids = await sync(werewolf_game)()
    await sync(game.directors.add)(director)
    # The auction (竞拍贴) entered before the start: 表演/挡刀 and a 性别卡.
    auction = {ids[6]: {"act": 37}, ids[1]: {"block": 23}, ids[8]: {"gender": "男"}}
    genders = {ids[s]: ("男" if s % 2 else "女") for s in SEATS}
    await sync(services.werewolf_auction_set)(
        game=game, director=director, genders=genders, auction=auction, reason="竞拍结果"
    )
    cast = await sync(players)(game)
    readers = {s: Reader(game, s, p) for s, p in cast.items()}
    for r in readers.values():
        await r.connect()

    def use(seat: int, skill: str, *targets: int) -> None:
        readers[seat].json.append(cast[seat].use(skill, *(ids[t] for t in targets)))

    # Night 1. P4 never votes in the forced 选举 (a 5(3) card follows); 长生 fires on P10.
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        await sync(services.werewolf_start)(game=game, director=director, now=NIGHT_1)
        for s in (1, 2, 3):
            await sync(use)(s, "elect", 1)
            await sync(use)(s, "wolf_kill", 10)
        await sync(use)(5, "white_kill", 13)
        await sync(use)(6, "divine", 2)
        await sync(use)(8, "protect", 11)
        await sync(use)(9, "admire", 12)
        # Refusals are read too: a villager trying the seer's, the wolves' and a vote.
        await sync(readers[15].refused)("use_skill", skill="divine", targets=[ids[1]])
        await sync(readers[15].refused)("use_skill", skill="elect", targets=[ids[1]])
        await sync(readers[16].refused)("vote", target=ids[1])
        await drained(readers)
    late = NIGHT_1 + dt.timedelta(minutes=31)
    with time_machine.travel(late, tick=False):
        assert await sync(services.werewolf_deadlines_run)(now=late) == 1
        await drained(readers)
    with time_machine.travel(late + dt.timedelta(minutes=1), tick=False):
        await sync(use)(7, "poison", 14)  # 通灵 came with the kills
        await drained(readers)
    assert await sync(Card.objects.filter(game=game, reason="5.3").count)() == 1

    # Day 1: the director overrides the draft: P6 is told something else, P12 gets a note.
    with time_machine.travel(bj(1, 8), tick=False):
        await sync(game_services.transitions_run_due)(now=bj(1, 8))
        draft = await sync(services.werewolf_night_resolve)(game=game, director=director)
        trace = [t["text"] for t in draft["trace"] if t.get("text")]
        assert trace
        overrides = {
            "feedback": {
                str(ids[6]): [{"kind": "divine", "target": ids[2], "role": "村民"}],
                str(ids[12]): [{"kind": "note", "text": NOTE}],
            }
        }
        await sync(services.werewolf_night_publish)(
            game=game, director=director, reason=OVERRIDE_REASON, overrides=overrides
        )
        await drained(readers)
    assert {
        (c.pk, c.cause)
        for c in await sync(list)(Character.objects.filter(game=game, status="eliminated"))
    } == {
        (ids[14], services.NIGHT_CAUSE),
        (ids[13], services.NIGHT_CAUSE),
    }

    # Day 1: the 5(3) card confirmed; a red card by day (猎人, no loss); the reminder.
    with time_machine.travel(bj(1, 12), tick=False):
        missed = await sync(list)(Card.objects.filter(game=game, reason="5.3"))
        await sync(card_services.cards_review)(
            cards=missed, reviewer=staff, confirm=True, reason=STAFF_REASON
        )
        await sync(_red_card)(game, director, staff, ids[11], loses=False)
        await sync(services.werewolf_vote_reminders_run)(now=bj(1, 19, 5))
        await drained(readers)
    with time_machine.travel(bj(1, 19, 10), tick=False):
        await sync(_ballots_before_the_close)(readers, ids)
        await drained(readers)

    # 关门: the portal ballots put P8 (守护) out; night 2 opens.
    with time_machine.travel(NIGHT_2, tick=False):
        await sync(game_services.transitions_run_due)(now=NIGHT_2)
        await drained(readers)
    assert await sync(lambda: Character.objects.get(pk=ids[8]).status)() == "eliminated"

    # Night 2: the 白眼狼 red-carded in the night, its faction loses; the wolves kill P16.
    with time_machine.travel(NIGHT_2 + dt.timedelta(minutes=2), tick=False):
        for s in WOLVES:
            await sync(use)(s, "elect", 2)
        await sync(use)(2, "wolf_kill", 16)
        await sync(use)(6, "divine", 17)
        await sync(_red_card)(game, director, staff, ids[5], loses=True)
        await drained(readers)
    done = NIGHT_2 + dt.timedelta(minutes=62)
    with time_machine.travel(done, tick=False):
        await sync(services.werewolf_deadlines_run)(now=done)
        await sync(services.werewolf_deadlines_run)(now=done + dt.timedelta(minutes=1))
        draft2 = await sync(services.werewolf_night_resolve)(game=game, director=director)
        trace += [t["text"] for t in draft2["trace"] if t.get("text")]
    with time_machine.travel(bj(2, 8), tick=False):
        await sync(game_services.transitions_run_due)(now=bj(2, 8))
        await sync(services.werewolf_night_publish)(game=game, director=director, reason="")
        await drained(readers)
        for r in readers.values():
            await sync(r.read_everything)()
            await r.drain()
    state = await sync(store.state_load)(game)
    assert state.winner is None  # the roles are not revealed yet
    assert not state.players[ids[16]].alive
    assert state.lost == ("white_wolf",)

    # What is public: roles of those out by day (投票, 红牌) and 判负 shown by a red card.
    public_roles = {ROLE_NAME["guard"], ROLE_NAME["hunter"], ROLE_NAME["white_wolf"]}
    hidden_deaths = {ids[13], ids[14], ids[16]}
    for seat, r in readers.items():
        role = SEATS[seat]
        text = r.text()
        allowed = {ROLE_NAME[role], *public_roles}
        if seat == 6:  # what the director told the seer, not what the engine drafted
            allowed.add("村民")
        assert roles_named(text) <= allowed, (seat, roles_named(text) - allowed)
        # Secret words of others.
        for word, holders in SECRET_SKILLS.items():
            if seat not in holders:
                assert word not in own_card_words(text, role), (seat, word)
        for secret in (OVERRIDE_REASON, STAFF_REASON, FACTION_REASON, CARD_NOTE, *trace):
            assert secret not in text, (seat, secret)
        assert (NOTE in text) == (seat == 12), seat
        if seat == 6:
            assert "村民" in text
        # 5(3): the code never shows; its words only to the carded wolf.
        if seat != 4:  # the carded wolf is told its own card and why
            assert not code_53(text), seat
            assert "必须行使特权" not in text, seat
        # The auction: another's 表演/挡刀/性别卡 never shows, nor any gold.
        # (0, 0): its own card of the deal before the auction was entered.
        own = {(0, 0), {6: (37, 0), 1: (0, 23)}.get(seat, (0, 0))}
        for d in dicts(r.json):
            assert "gold" not in d, seat
            if "act" in d or "block" in d:
                assert (d.get("act"), d.get("block")) in own, (seat, d)
            if "gender" in d:
                mine = {"男" if seat % 2 or seat == 8 else "女", "男" if seat % 2 else "女"}
                assert d["gender"] in mine, (seat, d)
        pages = "\n".join(html.unescape(h) for h in r.html)
        if seat != 6:
            assert "表演 37" not in pages, seat
        if seat != 1:
            assert "挡刀 23" not in pages, seat
        # Frames: no directors' kind; private ones are this character's alone.
        for d in dicts(r.json):
            if isinstance(d.get("kind"), str) and "payload" in d:
                assert d["kind"] not in DIRECTORS_ONLY, (seat, d["kind"])
                assert not {"reason", "director", "actor"} & set(d), seat
        # No night death's role next to its id.
        for d in dicts(r.json):
            if d.get("id") in hidden_deaths or d.get("target") in hidden_deaths:
                who = d.get("id", d.get("target"))
                if who != ids[seat]:
                    assert "role" not in d, (seat, d)
    # The search looked where the facts are: each reader's own, and the public, are there.
    for seat, r in readers.items():
        text = r.text()
        assert len(r.html) == 6, seat
        for public in ("vote_reminder", "夜晚出局", "红牌罚下"):
            assert public in text, (seat, public)
        # A 5(3) card is not announced at all while the game runs: only P4 hears of it.
        carded = [d for d in dicts(r.json) if "card" in d and d.get("character") == ids[4]]
        assert bool(carded) == (seat == 4), seat
    assert "[长生]已发动" in readers[10].text()
    assert "通灵" in readers[7].text()
    assert "主刀狼" in readers[3].text()
    assert "表演 37" in "".join(readers[6].html)
    assert "挡刀 23" in "".join(readers[1].html)
    assert "投票给" in readers[15].text()
    for r in readers.values():
        assert r.socket is not None
        await r.socket.disconnect()
