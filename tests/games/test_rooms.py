"""Rooms on a real [099] game: the 狼群 (导演会为狼人阵营建立一个QQ群), each player's 私聊导演, the
联谊群 — over real HTTP and real websockets, every player's socket, API answers and pages
recorded, and searched for what only a room's members may read.

[099] 已经出局的狼群中的角色仍然留在狼群 · 联谊群: 请随时关注联谊群导演发布的最新消息 ·
游戏过程中，每名玩家都有向导演提问规则，并要求导演在场上公示的权利.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
import time_machine
from channels.db import database_sync_to_async
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from games import card_services, room_services
from games import services as game_services
from games.models import Announcement, Card, Character, Event, Game, RoomMember
from tests.conftest import ORIGIN, bj, session_cookie, socket_open
from tests.werewolf.players import Player, Reader, players, werewolf_game
from werewolf import services

pytestmark = pytest.mark.django_db(transaction=True)
sync = database_sync_to_async

NIGHT_1 = bj(1, 0) - dt.timedelta(hours=2)
WOLVES = (1, 2, 3, 4)
PACK_WORDS = "今晚刀十号PACK7731"
AFTER_WORDS = "红牌之后的话AFTER4410"
QUESTION = "白痴被投出后还能投票吗Q5521"
ANSWER = "不能投票但可以发言A9034"


def url(game: Game, path: str = "") -> str:
    return f"/api/games/{game.pk}/rooms{path}"


def rooms_of(player: Player) -> dict[str, dict[str, Any]]:
    response = player.client.get(url(player.game))
    assert response.status_code == 200, response.content
    return {r["name"]: r for r in response.json()["rooms"]}


def say(client: Client, game: Game, token: str, body: str, **extra: Any) -> Any:
    return client.post(
        url(game, f"/{token}/messages"),
        {"body": body, **extra},
        content_type="application/json",
    )


def everything(reader: Reader) -> str:
    """All a player has read: socket frames, API answers, pages, and its rooms' messages."""
    client = reader.player.client
    reader.read_everything()
    listing = client.get(url(reader.game)).json()
    reader.json.append(listing)
    for room in listing["rooms"]:
        reader.json.append(client.get(url(reader.game, f"/{room['room']}/messages")).json())
    return json.dumps(reader.json, ensure_ascii=False) + "".join(reader.html)


async def drained(readers: dict[int, Reader]) -> None:
    for r in readers.values():
        await r.drain(timeout=0.05)


def red_card(game: Game, director: Any, staff: Any, character_id: int) -> None:
    card = card_services.card_add(
        game=game,
        director=director,
        character=Character.objects.get(pk=character_id),
        color="red",
        reason="11.1",
    )
    card_services.cards_review(cards=[card], reviewer=staff, confirm=True, reason="审核")
    assert Card.objects.get(pk=card.pk).effect


async def test_the_pack_talks_among_itself_and_nobody_else_reads_a_word(
    director: Any, staff: Any
) -> None:
    game, ids = await sync(werewolf_game)()
    await sync(game.directors.add)(director)
    cast = await sync(players)(game)
    readers = {s: Reader(game, s, p) for s, p in cast.items()}
    for r in readers.values():
        await r.connect()
    boss = Client()
    await sync(boss.force_login)(director)
    directors_socket, _ = await socket_open(game, ORIGIN, session_cookie(boss))

    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        await sync(services.werewolf_start)(game=game, director=director, now=NIGHT_1)
        pack = (await sync(rooms_of)(cast[1]))["狼群"]
        # Every wolf is in it from the start, told so; nobody else has it.
        for seat in range(1, 19):
            names = set(await sync(rooms_of)(cast[seat]))
            assert names == ({"狼群"} if seat in WOLVES else set()) | {"私聊导演", "联谊群"}
        answer = await sync(say)(cast[1].client, game, pack["room"], PACK_WORDS)
        assert answer.status_code == 200, answer.content
        assert answer.json()["message"]["body"] == PACK_WORDS
        await drained(readers)

        # Each wolf's socket carried the message once, numbered from its joining: the join
        # notice is 1, the message 2.
        for seat in WOLVES:
            frames = [f for f in readers[seat].json if f.get("type") == "room"]
            assert [(f["seq"], f["kind"]) for f in frames] == [
                (1, "room_joined"),
                (2, "room_message"),
            ]
            assert frames[1]["text"] == f"P1：{PACK_WORDS}"
            assert frames[0]["text"] == "P1、P2、P3、P4 加入了狼群"
        # The directors read it live, with the room named.
        seen = []
        while not await directors_socket.receive_nothing(timeout=0.1):
            seen.append(await directors_socket.receive_json_from())
        (line,) = [f for f in seen if f.get("kind") == "room_message"]
        assert line["text"] == f"【狼群】P1：{PACK_WORDS}"
        assert line["audience_label"] == "群聊：狼群"

        # A villager asking for the pack's room by its token is told it does not exist.
        refused = await sync(cast[15].client.get)(url(game, f"/{pack['room']}/messages"))
        assert (refused.status_code, refused.json()["code"]) == (404, "room_not_found")
        posted = await sync(say)(cast[15].client, game, pack["room"], "我也来")
        assert (posted.status_code, posted.json()["code"]) == (404, "room_not_found")

    # Day 1: P2 is red-carded (it leaves the game, so the pack); P1 dies at night and stays.
    with time_machine.travel(bj(1, 12), tick=False):
        await sync(game_services.transitions_run_due)(now=bj(1, 12))
        await sync(red_card)(game, director, staff, ids[2])
        await drained(readers)
        removed = [f for f in readers[2].json if f.get("kind") == "room_removed"]
        assert [f["text"] for f in removed] == ["你已不在狼群中，此后不会再收到其中的消息"]
        assert "狼群" not in await sync(rooms_of)(cast[2])
        left = [f for f in readers[3].json if f.get("kind") == "room_left"]
        assert [f["text"] for f in left] == ["P2 已被移出狼群"]
        before = len([f for f in readers[2].json if f.get("type") == "room"])
        answer = await sync(say)(cast[3].client, game, pack["room"], AFTER_WORDS)
        assert answer.status_code == 200, answer.content
        await drained(readers)
        assert len([f for f in readers[2].json if f.get("type") == "room"]) == before
        assert AFTER_WORDS in json.dumps(readers[4].json, ensure_ascii=False)
        refused = await sync(cast[2].client.get)(url(game, f"/{pack['room']}/messages"))
        assert refused.status_code == 404

    # Nobody outside the pack, and the red-carded wolf after its removal, read the words.
    for seat, reader in readers.items():
        text = await sync(everything)(reader)
        assert (PACK_WORDS in text) == (seat in WOLVES), seat
        assert (AFTER_WORDS in text) == (seat in (1, 3, 4)), seat
    await directors_socket.disconnect()
    for r in readers.values():
        assert r.socket is not None
        await r.socket.disconnect()


def test_the_lobby_is_the_directors_once_the_game_runs(director: Any) -> None:
    """游戏开始之后，联谊群禁言: before the start players chat in it; then only directors post."""
    game, _ids = werewolf_game()
    game.directors.add(director)
    Game.objects.filter(pk=game.pk).update(status="draft")  # in preparation
    cast = players(game)  # the passwords sent: the lobby and the inboxes are there
    lobby = rooms_of(cast[15])["联谊群"]
    assert lobby["can_post"] is True
    assert say(cast[15].client, game, lobby["room"], "大家好").status_code == 200
    Game.objects.filter(pk=game.pk).update(status="running")
    with time_machine.travel(NIGHT_1, tick=False):
        services.werewolf_start(game=game, director=director, now=NIGHT_1)
    lobby = rooms_of(cast[15])["联谊群"]
    assert (lobby["can_post"], lobby["why"]) == (
        False,
        "游戏进行中，联谊群禁言，只有导演可以发言。",
    )
    count = Event.objects.filter(game=game).count()
    refused = say(cast[15].client, game, lobby["room"], "我想说话")
    assert (refused.status_code, refused.json()["code"]) == (403, "lobby_muted")
    assert Event.objects.filter(game=game).count() == count
    boss = Client()
    boss.force_login(director)
    assert say(boss, game, lobby["room"], "今晚九点投票截止").status_code == 200
    texts = [
        m["text"]
        for m in cast[9].client.get(url(game, f"/{lobby['room']}/messages")).json()["messages"]
    ]
    assert texts[-1].endswith("：今晚九点投票截止")
    assert "P15：大家好" in texts


def test_a_question_to_the_directors_and_its_answer_made_public(director: Any) -> None:
    """私聊导演询问规则上的问题，并请导演在场上公示: the answer, with its question and without the
    asker, becomes an announcement in one action; the other players never read the inbox."""
    game, _ids = werewolf_game()
    game.directors.add(director)
    cast = players(game)
    inbox = rooms_of(cast[13])["私聊导演"]
    assert [t["label"] for t in inbox["topics"]] == ["规则提问", "投诉", "使用道具", "代投", "其他"]
    asked = say(cast[13].client, game, inbox["room"], QUESTION, topic="rule")
    assert asked.status_code == 200, asked.content
    assert asked.json()["message"]["text"] == f"P13：【规则提问】{QUESTION}"
    boss = Client()
    boss.force_login(director)
    directors_view = {(r["name"], r.get("owner")): r for r in boss.get(url(game)).json()["rooms"]}
    token = directors_view[("私聊导演", "P13")]["room"]
    assert token == inbox["room"]
    assert say(boss, game, token, ANSWER).status_code == 200
    frames = boss.get(url(game, f"/{token}/messages")).json()["messages"]
    answer = frames[-1]
    assert answer["text"] == f"【私聊导演 · P13】导演 {director.get_username()}：{ANSWER}"

    published = boss.post(
        url(game, "/announce"), {"seq": answer["seq"]}, content_type="application/json"
    )
    assert published.status_code == 200, published.content
    note = Announcement.objects.get(pk=published.json()["announcement"])
    assert note.body == f"问：{QUESTION}\n答：{ANSWER}"
    assert "P13" not in note.body + note.title
    again = boss.post(
        url(game, "/announce"), {"seq": answer["seq"]}, content_type="application/json"
    )
    assert (again.status_code, again.json()["code"]) == (409, "already_announced")
    # A player may not publish; a question (not an answer) is not publishable.
    mine = cast[13].client.post(
        url(game, "/announce"), {"seq": answer["seq"]}, content_type="application/json"
    )
    assert mine.status_code == 403
    question_seq = frames[-2]["seq"]
    wrong = boss.post(
        url(game, "/announce"), {"seq": question_seq}, content_type="application/json"
    )
    assert (wrong.status_code, wrong.json()["code"]) == (409, "not_a_question")
    # Everyone reads the announcement; only P13 the inbox.
    assert any(e["kind"] == "announcement" for e in cast[5].events())
    asker = [
        m["text"] for m in cast[13].client.get(url(game, f"/{token}/messages")).json()["messages"]
    ]
    assert asker[-1] == "导演已将这条回答在场上公示：规则答疑"
    for seat in (1, 5, 15):
        page = cast[seat].client.get(f"/play/{game.number}/me/").content.decode()
        read = json.dumps(cast[seat].events(), ensure_ascii=False) + page
        assert "【规则提问】" not in read  # the inbox itself, and who asked
        assert cast[seat].client.get(url(game, f"/{token}/messages")).status_code == 404


@pytest.mark.parametrize(
    ("body", "extra", "code"),
    [
        ("   ", {}, "message_empty"),
        ("字" * 501, {}, "message_too_long"),
        ("有问题", {"topic": "bribe"}, "bad_topic"),
    ],
)
def test_bad_messages_are_refused_and_change_nothing(
    body: str, extra: dict[str, Any], code: str
) -> None:
    game, _ids = werewolf_game()
    cast = players(game)
    inbox = rooms_of(cast[6])["私聊导演"]
    count = Event.objects.filter(game=game).count()
    refused = say(cast[6].client, game, inbox["room"], body, **extra)
    assert (refused.status_code, refused.json()["code"]) == (400, code)
    assert refused.json()["message"]
    assert Event.objects.filter(game=game).count() == count


def test_a_member_that_talks_too_fast_is_told_to_wait(settings: Any) -> None:
    settings.ROOM_MESSAGE_RATE = "3/m"
    game, _ids = werewolf_game()
    cast = players(game)
    inbox = rooms_of(cast[6])["私聊导演"]
    for n in range(3):
        assert say(cast[6].client, game, inbox["room"], f"第{n}条").status_code == 200
    refused = say(cast[6].client, game, inbox["room"], "第4条")
    assert (refused.status_code, refused.json()["code"]) == (429, "too_many_messages")
    assert refused["Retry-After"]
    # Another member is not slowed by P6's pace.
    other = rooms_of(cast[7])["私聊导演"]
    assert say(cast[7].client, game, other["room"], "我的问题").status_code == 200


def test_a_substitute_is_announced_in_its_rooms_and_takes_the_seat(director: Any) -> None:
    """替补玩家进入QQ群之后，便不允许前任玩家在QQ群内发言: the seat's new credentials are the
    substitute's; the old session is signed out; the pack is told."""
    game, ids = werewolf_game()
    game.directors.add(director)
    cast = players(game)
    with time_machine.travel(NIGHT_1, tick=False):
        services.werewolf_start(game=game, director=director, now=NIGHT_1)
    pack = rooms_of(cast[2])["狼群"]["room"]
    with time_machine.travel(bj(1, 12), tick=False):
        game_services.transitions_run_due(now=bj(1, 12))
        _sub, password, _link = game_services.substitute_record(
            game=game,
            director=director,
            character=Character.objects.get(pk=ids[2]),
            forum_username="替补甲",
            reason="原玩家出差",
        )
        old = say(cast[2].client, game, pack, "我还在吗")
        assert old.status_code == 404  # the old session no longer speaks for P2
        texts = [
            m["text"] for m in cast[1].client.get(url(game, f"/{pack}/messages")).json()["messages"]
        ]
        assert texts[-1] == "替补玩家已接替 P2，此后由替补在群内发言"
        new = Player(game, "P2", password.secret)
        assert say(new.client, game, pack, "替补报到").status_code == 200


# One send in a room whose members have not moved: the lock, the room, the rules (the cast and
# the [099] state), the room's members once, the log's row and the game's counters — not every
# room's members again (tests/bench/bench_rooms.py measured what that cost on a 40-member lobby).
SEND_QUERIES = 7
CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE")  # the transaction's, by backend


def test_a_send_reads_the_rules_but_not_the_rooms_when_nothing_moved_and_follows_what_did() -> None:
    game, _ids = werewolf_game()
    Game.objects.filter(pk=game.pk).update(status="draft")  # players post in the lobby
    cast = players(game)
    lobby = rooms_of(cast[15])["联谊群"]["room"]
    author = Character.objects.get(game=game, name="P15")
    with CaptureQueriesContext(connection) as captured:
        sent = room_services.room_message_send(
            game=game, token=lobby, body="大家好", character=author
        )
    statements = [q["sql"] for q in captured if not q["sql"].startswith(CONTROL)]
    assert len(statements) == SEND_QUERIES, "\n".join(statements)
    assert sent.event.payload["body"] == "大家好"

    # A character written straight into the cast (no event, so no step followed it): the next
    # send still finds it in the lobby before the message goes out, and it receives that one.
    newcomer = Character.objects.create(game=game, name="P19")
    room_services.room_message_send(game=game, token=lobby, body="欢迎新人", character=author)
    stay = RoomMember.objects.get(room__token=lobby, character=newcomer, left_at__isnull=True)
    readable = Event.objects.filter(room=stay.room, stream_seq__gt=stay.since)
    assert [e.payload["body"] for e in readable if e.kind == "room_message"] == ["欢迎新人"]


async def test_the_wolves_election_is_told_in_the_pack_as_it_happens(director: Any) -> None:
    # The team decision of a <团队> skill is shown in the team's room as it happens: each wolf's
    # 选举 vote (狼人共同选举) is a line of the 狼群, read by the pack and nobody else.
    game, ids = await sync(werewolf_game)()
    await sync(game.directors.add)(director)
    cast = await sync(players)(game)
    readers = {s: Reader(game, s, p) for s, p in cast.items()}
    for r in readers.values():
        await r.connect()
    with time_machine.travel(NIGHT_1 + dt.timedelta(minutes=1), tick=False):
        await sync(services.werewolf_start)(game=game, director=director, now=NIGHT_1)
        await sync(cast[2].use)("elect", ids[1])
        await drained(readers)
    for seat in range(1, 19):
        lines = [
            f["text"]
            for f in readers[seat].json
            if f.get("type") == "room" and f.get("kind") == "room_decision"
        ]
        assert lines == (["P2 提交了【选举】：P1"] if seat in WOLVES else [])
    # Told once in the room (the engine told each wolf apart), logged with the room's audience.
    logged = await sync(list)(Event.objects.filter(game=game, kind="room_decision"))
    assert [(e.audience, e.actor_id) for e in logged] == [("room", ids[2])]
