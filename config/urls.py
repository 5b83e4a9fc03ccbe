from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from config.api import api
from games import card_views, views

play = [
    path("", views.login, name="play-login"),
    path("k/<str:token>/", views.login_link, name="play-link"),
    path("me/", views.play_home, name="play-home"),
    path("logout/", views.logout, name="play-logout"),
    path("pace/", card_views.pace_request, name="play-pace"),
]

urlpatterns = [
    path("", views.index, name="index"),
    path("games/<str:number>/", views.game_public, name="game-public"),
    path("games/<str:number>/archive/", views.game_archive, name="game-archive"),
    path(
        "games/<str:number>/archive/day/<int:day>/",
        views.game_archive_day,
        name="game-archive-day",
    ),
    path(
        "games/<str:number>/archive/room/<str:token>/",
        views.game_archive_room,
        name="game-archive-room",
    ),
    path(
        "games/<str:number>/archive/roll/<int:seq>/<int:index>/",
        views.game_archive_roll,
        name="game-archive-roll",
    ),
    path("play/<str:number>/", include(play)),
    path("api/", api.urls),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
]
