"""Portal pages (server-rendered, Chinese first). Each view parses, calls one service, renders."""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from games import archive_selectors, selectors, services
from games.engine.errors import RuleError
from games.models import Character, Game
from games.registry import kind_get


def client_address(request: HttpRequest) -> str:
    if settings.TRUST_X_FORWARDED_FOR:
        forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
        if forwarded:
            return forwarded.split(",")[0].strip()[:64]
    return str(request.META.get("REMOTE_ADDR", "unknown"))[:64]


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
        "announcements": selectors.announcements_published(game=game),
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
    status = error.status if error else 200
    return render(request, "games/login.html", {"number": number, "error": error}, status=status)


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
        context = {"number": number, "error": exc}
        return render(request, "games/login.html", context, status=exc.status)
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


def game_archive_roll(request: HttpRequest, number: str, seq: int, index: int) -> HttpResponse:
    game = _game_or_404(number)
    if not archive_selectors.archive_open(game):
        return _archive_closed(request, game)
    check = archive_selectors.roll_check(game=game, seq=seq, index=index)
    if check is None:
        raise Http404
    return render(request, "games/archive_roll.html", {"game": game, "check": check})
