"""Portal pages (server-rendered, Chinese first). Each view parses, calls one service, renders."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.contrib import admin
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from games import archive_selectors, selectors, services
from games.engine.errors import RuleError
from games.models import Character, Game
from games.registry import kind_get


def _ip(text: object) -> str | None:
    try:
        ip = ipaddress.ip_address(str(text).strip())
    except ValueError:
        return None
    mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
    return str(mapped or ip)


def client_address(request: HttpRequest) -> str | None:
    """The client's IP address, for the character login limits and the admin's lockouts
    (``AXES_CLIENT_IP_CALLABLE``); None when the request carries none that parses.

    Behind ``TRUSTED_PROXY_COUNT`` proxies (``TRUST_X_FORWARDED_FOR``), each appends the
    address it was reached from to X-Forwarded-For, so the client is the n-th entry from the
    right; anything left of it was written by the client and could be anything. A shorter
    header was all written by the proxies (the request met fewer of them), so its left-most
    entry is the client. No header at all: the request did not come through a proxy, and its
    peer is the client.
    """
    if settings.TRUST_X_FORWARDED_FOR:
        forwarded = str(request.META.get("HTTP_X_FORWARDED_FOR", "")).strip()
        if forwarded:
            hops = forwarded.split(",")
            return _ip(hops[-min(settings.TRUSTED_PROXY_COUNT, len(hops))])
    return _ip(request.META.get("REMOTE_ADDR", ""))


def session_login(request: HttpRequest, character: Character) -> None:
    # A new session key on login: an attacker who planted a session id learns nothing.
    characters = dict(request.session.get(selectors.SESSION_KEY) or {})
    request.session.cycle_key()
    characters[str(character.game_id)] = character.pk
    request.session[selectors.SESSION_KEY] = characters
    # Saved now so the key exists: a credential reset signs this session out by its key.
    request.session.save()
    services.character_session_record(
        character=character, session_key=request.session.session_key or ""
    )


def _game_or_404(number: str) -> Game:
    game = selectors.game_by_number(number=number)
    if game is None:
        raise Http404
    return game


def index(request: HttpRequest) -> HttpResponse:
    return render(request, "games/index.html", {"games": selectors.games_public()})


def game_public(request: HttpRequest, number: str) -> HttpResponse:
    game = selectors.game_page_by_number(number=number)
    if game is None:
        raise Http404
    context = {
        "game": game,
        "announcements": selectors.announcements_headed(game=game),
        "characters": game.characters.order_by("id"),
        "dead": set(selectors.deaths_public(game=game).values_list("pk", flat=True)),
    }
    return render(request, "games/public.html", context)


@require_http_methods(["GET", "POST"])
def login(request: HttpRequest, number: str) -> HttpResponse:
    # The form answers the same for every number, so it does not reveal which games exist.
    error: RuleError | None = None
    if request.method == "POST":
        try:
            character = services.character_login(
                game_number=number,
                password=str(request.POST.get("password", "")),
                address=client_address(request),
            )
        except RuleError as exc:
            error = exc
        else:
            session_login(request, character)
            return redirect("play-home", number=number)
    return _login_form(request, number, error)


def _login_form(request: HttpRequest, number: str, error: RuleError | None) -> HttpResponse:
    status = error.status if error else 200
    context = {"number": number, "error": error}
    response = render(request, "games/login.html", context, status=status)
    # A 429 says when to come back, as the API's does (config/api.py).
    retry_after = error.detail.get("retry_after") if error else None
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return response


@never_cache
@require_http_methods(["GET", "POST"])
def login_link(request: HttpRequest, number: str, token: str) -> HttpResponse:
    # Opening the link shows a button; only its POST (with the CSRF check) logs in. A GET that
    # logged in would let any page sign its visitors in as a character of its own (an <img>,
    # a redirect): login CSRF. The page answers the same for every token, valid or not.
    if request.method != "POST":
        return render(request, "games/login_link.html", {"number": number})
    try:
        character = services.character_login_link(
            game_number=number, token=token, address=client_address(request)
        )
    except RuleError as exc:
        return _login_form(request, number, exc)
    session_login(request, character)
    return redirect("play-home", number=number)


def play_home(request: HttpRequest, number: str) -> HttpResponse:
    game = _game_or_404(number)
    character = selectors.session_character(game=game, session=request.session)
    if character is None:
        return redirect("play-login", number=number)
    portal = kind_get(game.kind).portal
    if portal is not None:
        return portal(request, game, character)
    return render(request, "games/home.html", {"game": game, "character": character})


@require_POST
def logout(request: HttpRequest, number: str) -> HttpResponse:
    characters = dict(request.session.get(selectors.SESSION_KEY) or {})
    game = selectors.game_by_number(number=number)
    character_id = characters.pop(str(game.pk), None) if game is not None else None
    request.session[selectors.SESSION_KEY] = characters
    if game is not None and character_id is not None:
        # Saved before the sockets close: one that reconnects at once finds no character.
        request.session.save()
        services.character_signed_out(
            game_id=game.pk,
            character_id=int(character_id),
            session_key=request.session.session_key or "",
        )
    return redirect("play-login", number=number)


# --- the archive (复盘): public once the game is over ---------------------------------------


def _archive_closed(request: HttpRequest, game: Game) -> HttpResponse:
    # While the game runs there is no archive: the page says when it opens, and nothing else.
    return render(request, "games/archive_closed.html", {"game": game}, status=404)


def game_archive(request: HttpRequest, number: str) -> HttpResponse:
    game = _game_or_404(number)
    archive = archive_selectors.archive_get(game=game)
    if archive is None:
        return _archive_closed(request, game)
    context = {
        "game": game,
        "archive": archive,
        "cache_version": archive_selectors.ARCHIVE_CACHE_VERSION,
    }
    return render(request, "games/archive.html", context)


def game_archive_day(request: HttpRequest, number: str, day: int) -> HttpResponse:
    game = _game_or_404(number)
    if not archive_selectors.archive_open(game):
        return _archive_closed(request, game)
    log = archive_selectors.archive_day_get(game=game, day=day)
    if log is None:
        raise Http404
    show_steps = request.GET.get("steps") == "1"
    context = {
        "game": game,
        "log": log,
        "show_steps": show_steps,
        "cache_version": archive_selectors.ARCHIVE_CACHE_VERSION,
    }
    return render(request, "games/archive_day.html", context)


def game_archive_room(request: HttpRequest, number: str, token: str) -> HttpResponse:
    game = _game_or_404(number)
    if not archive_selectors.archive_open(game):
        return _archive_closed(request, game)
    room = archive_selectors.archive_room_get(game=game, token=token)
    if room is None:
        raise Http404
    return render(request, "games/archive_room.html", {"game": game, "room": room})


def game_archive_roll(request: HttpRequest, number: str, seq: int, index: int) -> HttpResponse:
    game = _game_or_404(number)
    if not archive_selectors.archive_open(game):
        return _archive_closed(request, game)
    check = archive_selectors.roll_check(game=game, seq=seq, index=index)
    if check is None:
        raise Http404
    return render(request, "games/archive_roll.html", {"game": game, "check": check})


# --- the admin's login lockout (django-axes) ------------------------------------------------


def admin_lockout(request: HttpRequest, *_: object) -> HttpResponse:
    """What a locked-out admin login sees (``AXES_LOCKOUT_CALLABLE``): a Chinese page, 429 with
    ``Retry-After``. axes passes (response, credentials) or (credentials) after the request
    depending on the code path, and neither is needed here."""
    cool_off = int(settings.AXES_COOLOFF_TIME.total_seconds())
    context = {
        **admin.site.each_context(request),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": max(1, round(cool_off / 60)),
    }
    response = render(request, "admin/lockout.html", context, status=429)
    # The lock lasts the cool-off from the last failure counted: at most this long.
    response["Retry-After"] = str(cool_off)
    return response
