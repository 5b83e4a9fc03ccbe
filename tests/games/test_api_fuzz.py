"""Every operation of the OpenAPI schema, fed bad input: every answer is a 4xx with a JSON
``code``, none a 5xx, and nothing changes (invariant 5).

The operations, their parameters and their bodies' fields are read from ``/api/openapi.json``,
and the actions' fields matched to the engines' action kinds, so a new endpoint or field is
fuzzed without touching this file. Each operation is called as a logged-in player where it
needs one, on real games made through the services: a [256] night 1 with three characters
spawned, a [099] night 1 of 18. What is sent: malformed JSON, each field with each JSON type it
does not take, huge values (100 kB strings, 64-bit overflows, 5000-digit numbers), NUL, lone
and reversed surrogates (escaped and as raw bytes), zero-width-only text; bad path and query
values and headers. Afterwards the log has not grown, the stored state is as before, and a
replay of the log from the seed equals it.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, fields
from typing import Any
from urllib.parse import quote

import pytest
import time_machine
from django.test import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.models import Character, Event, Game
from royale.engine.actions import ACTION_TYPES as ROYALE_ACTIONS
from royale.models import ActionRecord
from royale.selectors import royale_state
from royale.services import royale_replay
from tests.conftest import bj
from tests.royale.conftest import _quiet_days, night_one, players, royale_game
from tests.werewolf.players import players as werewolf_players
from tests.werewolf.players import werewolf_game
from werewolf import services as werewolf_services
from werewolf import store
from werewolf.engine.actions import ACTION_TYPES as WEREWOLF_ACTIONS

pytestmark = pytest.mark.django_db
__all__ = ["_quiet_days"]  # the royale tests' fixture: no daily events drawn from the seed

ROYALE_NIGHT = bj(1, 21, 12)
WEREWOLF_NIGHT = bj(1, 0) - dt.timedelta(hours=2) + dt.timedelta(minutes=1)

HUGE = "x" * 100_000
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"
# Strings no text field may take through: NUL, lone and reversed surrogates, nothing visible.
BAD_STRINGS: dict[str, str] = {
    "nul": "a\x00b",
    "high surrogate": "\ud800",
    "low surrogate": "x\udfff",
    "reversed pair": "\udc00\ud800",
    "zero-width": ZERO_WIDTH,
    "blank": " \u200b\n\u3000",
    "huge": HUGE,
}
# One value of each JSON type, to put where the schema takes another.
BY_TYPE: dict[str, Any] = {
    "boolean": True,
    "integer": 1,
    "number": 1.5,
    "string": "1",
    "array": [],
    "null": None,
    "object": {},
}
# Raw JSON number literals: overflow, infinity, past Python's 4300-digit limit.
HUGE_NUMBERS = ["1e400", "-1e400", "9" * 5000, str(2**63), str(-(2**63) - 1), "1.0", "NaN"]
MALFORMED = [
    b"",
    b"{not json",
    b"{",
    b"[]",
    b"null",
    b"1",
    b'"x"',
    b'{"kind": "rest",}',
    b"\xff\xfe",
    b"[" * 100_000,
    b'{"kind": "rest", "\\u0000": 1}',
    b'{"kind\\ud800": "rest"}',
]


@dataclass
class Sent:
    what: str
    method: str
    url: str
    status: int
    body: bytes


@dataclass
class Fuzz:
    """The games, the clients, and every answer."""

    kind: str  # royale or werewolf: whose action endpoints to call
    game: Game
    player: Client  # a logged-in character of ``game``
    values: dict[str, Any]  # a plausible value per field name (the base of a mutated body)
    actions: dict[str, type]  # the kind's engine actions, by ``kind``
    answers: list[Sent] = field(default_factory=list)

    def send(
        self,
        what: str,
        method: str,
        url: str,
        *,
        body: bytes | None = None,
        client: Client | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        client = client or self.player
        if method == "GET":
            response = client.get(url, headers=headers)
        else:
            response = client.generic(
                method, url, body or b"", content_type="application/json", headers=headers
            )
        self.answers.append(Sent(what, method, url, response.status_code, response.content))

    def wrong(self) -> list[str]:
        """The answers that are not a 4xx with a JSON code and message."""
        bad = []
        for a in self.answers:
            try:
                data = json.loads(a.body)
                ok = 400 <= a.status < 500 and isinstance(data.get("code"), str)
                ok = ok and isinstance(data.get("message"), str) and bool(data["message"])
            except (ValueError, AttributeError):
                ok = False
            if not ok:
                bad.append(f"{a.what}: {a.method} {a.url[:120]} → {a.status} {a.body[:160]!r}")
        return bad


def dumps(value: Any) -> bytes:
    # ensure_ascii: lone surrogates travel as escapes, as a browser's JSON.stringify sends them
    return json.dumps(value).encode()


def path_quote(value: str) -> str:
    return quote(value.encode("utf-8", "surrogatepass"), safe="")


def json_types(schema: dict[str, Any]) -> set[str]:
    """The JSON types a field's schema takes (``integer`` counts as a number too)."""
    options = schema.get("anyOf", [schema])
    types = {o["type"] for o in options if "type" in o}
    return types | ({"number"} if "integer" in types else set())


def item_types(schema: dict[str, Any]) -> set[str]:
    for option in schema.get("anyOf", [schema]):
        if option.get("type") == "array":
            return json_types(option.get("items", {}))
    return set()


def bad_values(schema: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(what, value) for a field: every JSON type it does not take, and bad strings and lists."""
    types = json_types(schema)
    for name, value in BY_TYPE.items():
        if name not in types and not (name == "number" and "integer" in types):
            yield f"type {name}", value
    if "integer" in types:
        yield "float 1.0", 1.0  # a float, even a whole one, is no integer
        yield "overflow", 2**70
    if "string" in types:
        yield from BAD_STRINGS.items()
    items = item_types(schema)
    if items:
        for name, value in BY_TYPE.items():
            if name not in items and name != "null":
                yield f"item type {name}", [value]
        yield "list too long", [next(iter(plausible_item(items)))] * 10_000
        if "string" in items:
            for name, value in BAD_STRINGS.items():
                yield f"item {name}", [value]


def plausible_item(types: set[str]) -> Iterator[Any]:
    yield "乙" if "string" in types else 1


def components(schema: dict[str, Any], ref: str) -> dict[str, Any]:
    node: Any = schema
    for part in ref.lstrip("#/").split("/"):
        node = node[part]
    return dict(node)


def body_schema(schema: dict[str, Any], op: dict[str, Any]) -> dict[str, Any] | None:
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return None
    node = content["schema"]
    return components(schema, node["$ref"]) if "$ref" in node else dict(node)


def bases(fuzz: Fuzz, body: dict[str, Any], name: str) -> list[dict[str, Any]]:
    """Bodies a mutated ``name`` goes into: for an action field, each engine action kind that
    has it, with plausible values for its other fields; for any other body, plausible values."""
    props = body.get("properties", {})
    if "kind" not in props:
        return [{k: fuzz.values.get(k, "x") for k in props}]
    if name == "kind":
        return [{"kind": "rest"}]
    found = []
    for kind, cls in fuzz.actions.items():
        names = {f.name for f in fields(cls)}
        if name in names:
            found.append({"kind": kind, **{n: fuzz.values[n] for n in names if n in fuzz.values}})
    return found or [{"kind": "rest"}]


def url_for(path: str, values: dict[str, str]) -> str:
    return re.sub(r"{(\w+)}", lambda m: values[m[1]], path)


def fuzz_operation(
    fuzz: Fuzz, schema: dict[str, Any], method: str, path: str, op: dict[str, Any]
) -> None:
    params = op.get("parameters", [])
    good_path = {p["name"]: str(fuzz.values[p["name"]]) for p in params if p["in"] == "path"}
    url = url_for(path, good_path)
    anonymous = Client()
    client = anonymous if path.endswith("/login") else fuzz.player
    body = body_schema(schema, op)
    # a body of plausible values: it goes with the bad path, query and header values
    plain = bases(fuzz, body, "kind")[0] if body else None
    plain_bytes = dumps(plain) if plain is not None else None

    def send(what: str, target: str, **kwargs: Any) -> None:
        kwargs.setdefault("body", plain_bytes)
        fuzz.send(f"{op.get('operationId', path)} {what}", method, target, client=client, **kwargs)

    # The path's parameters: not a number, not a name, NUL, surrogates, nothing, huge.
    for p in (p for p in params if p["in"] == "path"):
        values = {"not a number": "abc", "bool": "true", "float": "1.5", "overflow": "9" * 30}
        values |= {name: v for name, v in BAD_STRINGS.items() if name != "huge"}
        values["huge"] = "9" * 10_000
        for what, value in values.items():
            if "integer" not in json_types(p["schema"]) and what in ("float", "overflow", "bool"):
                continue  # a string parameter takes these; a name that matches nothing is 404
            send(
                f"path {p['name']} {what}",
                url_for(path, {**good_path, p["name"]: path_quote(value)}),
            )
    # The query's parameters, and a junk one.
    for p in (p for p in params if p["in"] == "query"):
        for what, value in {
            "not a number": "abc",
            "bool": "true",
            "float": "1.5",
            "empty": "",
            "overflow": "9" * 30,
            "huge": "9" * 10_000,
            **BAD_STRINGS,
        }.items():
            send(f"query {p['name']} {what}", f"{url}?{p['name']}={path_quote(value)}")
    send("query NUL", f"{url}?x=%00")
    send("query NUL raw", f"{url}?x=\x00")
    # Headers the app reads, and any header.
    for p in (p for p in params if p["in"] == "header"):
        for what, value in {
            "empty": "",
            "spaces": "a b",
            "zero-width": ZERO_WIDTH,
            "huge": HUGE,
            "nul": "k\x00",
        }.items():
            send(f"header {p['name']} {what}", url, headers={p["name"]: value})
    send("header NUL", url, headers={"X-Fuzz": "a\x00b"})
    send("header surrogate", url, headers={"Accept-Language": "\ud800"})
    if body is None:
        return
    # The body: malformed, then each field in turn.
    for raw in MALFORMED:
        send(f"malformed {raw[:20]!r}", url, body=raw)
    for raw_text in ("\x00", "\ud800"):  # a bad character as raw UTF-8 bytes, not an escape
        text = json.dumps(
            {**(plain or {}), next(iter(body["properties"])): f"a{raw_text}b"}, ensure_ascii=False
        )
        send(f"raw bytes {raw_text!r}", url, body=text.encode("utf-8", "surrogatepass"))
    for name, prop in body["properties"].items():
        for base in bases(fuzz, body, name):
            for what, value in bad_values(prop):
                send(
                    f"{base.get('kind', '')}.{name} {what}", url, body=dumps({**base, name: value})
                )
            if "integer" in json_types(prop):
                for literal in HUGE_NUMBERS:
                    raw = dumps({**base, name: 0}).replace(
                        f'"{name}": 0'.encode(), f'"{name}": {literal}'.encode()
                    )
                    send(f"{base.get('kind', '')}.{name} literal {literal[:12]}", url, body=raw)
    send("too large", url, body=b'{"text": "' + b"x" * (3 * 1024 * 1024) + b'"}')


def fuzz_all(fuzz: Fuzz, client: Client) -> None:
    schema = client.get("/api/openapi.json").json()
    other = "werewolf" if fuzz.kind == "royale" else "royale"
    for path, ops in schema["paths"].items():
        if path.startswith(f"/api/{other}/"):
            continue  # the other kind's endpoints are fuzzed with its own game
        for method, op in ops.items():
            fuzz_operation(fuzz, schema, method.upper(), path, op)


def snapshot(game: Game) -> tuple[int, int, int]:
    return (
        Event.objects.filter(game=game).count(),
        ActionRecord.objects.filter(game=game).count(),
        Character.objects.filter(game=game, status="alive").count(),
    )


@pytest.fixture
def royale_night() -> Iterator[tuple[Game, dict[str, Any]]]:
    with time_machine.travel(ROYALE_NIGHT, tick=False):
        game = royale_game("256", ("甲", "乙", "丙"))
        night_one(game)
        cast = players(game)
        for name, place in (("甲", "医院"), ("乙", "医院"), ("丙", "监狱")):
            assert cast[name].act("spawn", place=place).status_code == 200
        yield game, cast


def royale_fuzz(game: Game, cast: dict[str, Any]) -> Fuzz:
    values = {
        "game_id": game.pk,
        "number": game.number,
        "place": "监狱",
        "handle": "0" * 12,
        "item": 1,
        "swap_out": 1,
        "target": "乙",
        "targets": ["乙"],
        "target_kind": "GPS",
        "text": "今晚小心。",
        "call": 1,
        "accept": True,
        "ware": "[HP10]草药",
        "items": [1],
        "lot": 1,
        "amount": 1,
        "notes": [1],
        "asks": ["1$"],
        "choices": ["1$"],
        "password": "AAAAAA-BBBBBB-CCCCCC-DDDDDD",
        "token": "AAAAAAAAAAAA",  # a room no one is in
        "body": "在吗？",
        "topic": "rule",
        "seq": 1,
    }
    return Fuzz("royale", game, cast["甲"].client, values, dict(ROYALE_ACTIONS))


def test_every_royale_operation_refuses_bad_input_and_changes_nothing(
    royale_night: tuple[Game, dict[str, Any]],
) -> None:
    game, cast = royale_night
    before = (snapshot(game), royale_state(game=Game.objects.get(pk=game.pk)).to_json())
    fuzz = royale_fuzz(game, cast)
    fuzz_all(fuzz, fuzz.player)

    assert len(fuzz.answers) > 500
    assert fuzz.wrong() == [], "\n".join(fuzz.wrong())
    fresh = Game.objects.get(pk=game.pk)
    stored = royale_state(game=fresh).to_json()
    assert (snapshot(game), stored) == before
    replayed = royale_replay(game=fresh)
    assert replayed is not None
    assert replayed.to_json() == stored
    # and the game still plays: the same character acts normally afterwards
    assert cast["甲"].act("whisper", target="乙", text="还在吗？").status_code == 200


def test_every_werewolf_operation_refuses_bad_input_and_changes_nothing(director: Any) -> None:
    game, ids = werewolf_game()
    cast = werewolf_players(game)
    werewolf_services.werewolf_start(game=game, director=director, now=WEREWOLF_NIGHT)
    with time_machine.travel(WEREWOLF_NIGHT, tick=False):
        before = (snapshot(game), store.state_load(game).to_json())
        values = {
            "game_id": game.pk,
            "number": game.number,
            "skill": "protect",
            "targets": [ids[17]],
            "target": ids[17],
            "accept": True,
            "password": "AAAAAA-BBBBBB-CCCCCC-DDDDDD",
            "token": "AAAAAAAAAAAA",
            "body": "在吗？",
            "topic": "rule",
            "seq": 1,
        }
        fuzz = Fuzz("werewolf", game, cast[8].client, values, dict(WEREWOLF_ACTIONS))
        fuzz_all(fuzz, fuzz.player)

        assert len(fuzz.answers) > 200
        assert fuzz.wrong() == [], "\n".join(fuzz.wrong())
        assert (snapshot(game), store.state_load(game).to_json()) == before
        replayed = store.replay(game=game)
        assert replayed is not None
        assert replayed.to_json() == store.state_load(game).to_json()
        # 守护 still protects P17 with the same body unharmed
        assert cast[8].act("use_skill", skill="protect", targets=[ids[17]]).status_code == 200


# --- random bodies -----------------------------------------------------------------------------

_strings = st.one_of(
    st.text(max_size=8),
    st.sampled_from([*BAD_STRINGS.values(), "乙", "医院", "监狱", "甲"]),
    st.text(alphabet=st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010), max_size=3),
)
_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _strings,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_strings, inner, max_size=3),
    max_leaves=8,
)


def _random_body(kinds: list[str], names: list[str]) -> st.SearchStrategy[bytes]:
    fields_ = st.dictionaries(st.sampled_from(names), _json, max_size=4)
    return st.builds(
        lambda kind, rest: dumps({"kind": kind, **rest}),
        st.sampled_from(kinds) | _json,
        fields_,
    )


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_random_royale_bodies_never_break_the_log(
    royale_night: tuple[Game, dict[str, Any]], data: st.DataObject
) -> None:
    """Random bodies, most of them wrong, some of them real actions: never a 5xx, every refusal
    a JSON code, and whatever was accepted replays to the stored state."""
    game, cast = royale_night
    schema_fields = [
        *ROYALE_ACTIONS["whisper"].__dataclass_fields__,
        *("place", "handle", "item", "targets", "text", "accept", "items", "asks"),
    ]
    body = data.draw(_random_body(sorted(ROYALE_ACTIONS), schema_fields))
    response = cast["甲"].client.post(
        f"/api/royale/games/{game.pk}/actions", body, content_type="application/json"
    )
    assert response.status_code < 500, (body, response.content)
    if response.status_code != 200:
        assert isinstance(response.json()["code"], str), response.content
    fresh = Game.objects.get(pk=game.pk)
    replayed = royale_replay(game=fresh)
    assert replayed is not None
    assert replayed.to_json() == royale_state(game=fresh).to_json()
