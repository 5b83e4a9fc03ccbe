"""What every game kind shares: games, characters, the event log, announcements, transitions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from games.engine import timetable as tt


class GameStatus(models.TextChoices):
    DRAFT = "draft", _("草稿")
    TEST = "test", _("测试赛")
    RUNNING = "running", _("进行中")
    FINISHED = "finished", _("已结束")
    ARCHIVED = "archived", _("已归档")


PHASE_LABELS = {
    "before": _("未开始"),
    "day": _("白天"),
    "dusk": _("已关门"),
    "night": _("夜间行动"),
    "late": _("行动结束"),
    "dawn": _("夜晚结算后"),
}
PHASE_CHOICES = [(p, PHASE_LABELS[p]) for p in tt.PHASES]
TRANSITION_LABELS = {
    "day_open": _("开门"),
    "day_close": _("关门"),
    "night_open": _("夜间行动开始"),
    "night_end": _("夜间行动截止"),
    "night_close": _("夜晚结算"),
}
TRANSITION_CHOICES = [(k, TRANSITION_LABELS[k]) for k in tt.TRANSITIONS]


class Game(models.Model):
    kind = models.CharField(_("类型"), max_length=32)
    ruleset = models.CharField(_("规则集"), max_length=64)
    number = models.CharField(_("编号"), max_length=16, unique=True, help_text=_("如 256、061"))
    title = models.CharField(_("标题"), max_length=200)
    status = models.CharField(
        _("状态"), max_length=16, choices=GameStatus.choices, default=GameStatus.DRAFT
    )
    directors = models.ManyToManyField(
        settings.AUTH_USER_MODEL, blank=True, related_name="directed_games", verbose_name=_("导演")
    )
    start_date = models.DateField(_("第一天日期"), null=True, blank=True)
    day_open_time = models.TimeField(_("开门时间"), default=tt.DEFAULT_TIMES["day_open"])
    day_close_time = models.TimeField(_("关门时间"), default=tt.DEFAULT_TIMES["day_close"])
    night_open_time = models.TimeField(_("夜间行动开始"), default=tt.DEFAULT_TIMES["night_open"])
    night_end_time = models.TimeField(_("夜间行动截止"), default=tt.DEFAULT_TIMES["night_end"])
    night_close_time = models.TimeField(_("夜晚结算"), default=tt.DEFAULT_TIMES["night_close"])
    day = models.PositiveIntegerField(_("第几天"), default=0)
    phase = models.CharField(_("阶段"), max_length=16, choices=PHASE_CHOICES, default="before")
    # A paused game accepts no action and runs no scheduled transition until resumed.
    paused = models.BooleanField(_("暂停"), default=False)
    seed = models.CharField(_("种子（保密）"), max_length=128, editable=False)
    seed_hash = models.CharField(_("种子 SHA-256"), max_length=64, editable=False)
    seed_revealed = models.BooleanField(_("已公开种子"), default=False)
    # Last global sequence number and each stream's last number; both only change while the
    # row is locked, which is what keeps the log free of gaps and duplicates.
    seq = models.PositiveBigIntegerField(default=0, editable=False)
    stream_seqs = models.JSONField(default=dict, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("游戏")
        verbose_name_plural = _("游戏")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return self.forum_title

    @property
    def forum_title(self) -> str:
        return f"[{self.number}] {self.title}"

    @property
    def is_live(self) -> bool:
        return self.status in {GameStatus.TEST, GameStatus.RUNNING}

    def timetable(self) -> tt.Timetable:
        if self.start_date is None:
            raise ValueError("game has no start date")
        times = {
            "day_open": self.day_open_time,
            "day_close": self.day_close_time,
            "night_open": self.night_open_time,
            "night_end": self.night_end_time,
            "night_close": self.night_close_time,
        }
        overrides = {(o.day, o.kind): o.at for o in self.timetable_overrides.all()}
        return tt.Timetable(start_date=self.start_date, times=times, overrides=overrides)


class TimetableOverride(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="timetable_overrides")
    day = models.PositiveIntegerField(_("第几天"))
    kind = models.CharField(_("时间点"), max_length=16, choices=TRANSITION_CHOICES)
    at = models.DateTimeField(_("改为"))

    class Meta:
        verbose_name = _("时间表调整")
        verbose_name_plural = _("时间表调整")
        constraints = [
            models.UniqueConstraint(fields=["game", "day", "kind"], name="uniq_override")
        ]

    def __str__(self) -> str:
        return f"D{self.day} {self.kind} → {self.at}"


class CharacterStatus(models.TextChoices):
    ALIVE = "alive", _("存活")
    ELIMINATED = "eliminated", _("出局")


class Character(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="characters")
    name = models.CharField(_("马甲"), max_length=64)
    forum_uid = models.CharField(_("论坛 UID"), max_length=32, blank=True)
    forum_username = models.CharField(_("论坛用户名"), max_length=64, blank=True)
    status = models.CharField(
        _("状态"), max_length=16, choices=CharacterStatus.choices, default=CharacterStatus.ALIVE
    )
    cause = models.CharField(_("死因"), max_length=32, blank=True)
    elimination_order = models.PositiveIntegerField(_("出局顺序"), null=True, blank=True)
    eliminated_day = models.PositiveIntegerField(_("出局日"), null=True, blank=True)
    # Whether the elimination has been announced: a night's deaths stay hidden from the public
    # (and from other players) until the morning report, while ``status`` is the truth at once.
    death_public = models.BooleanField(_("出局已公示"), default=False)
    idle = models.BooleanField(_("挂机"), default=False)
    # Played by the site itself (the demo, load tests), never by a person.
    bot = models.BooleanField(_("机器人"), default=False)
    # Keyed digests only (HMAC with PASSWORD_DIGEST_KEY); unique so a login is one index lookup.
    # NULL, not "", for "none": many characters may lack one, and "" would break uniqueness.
    password_digest = models.CharField(max_length=64, unique=True, null=True, editable=False)  # noqa: DJ001
    link_digest = models.CharField(max_length=64, unique=True, null=True, editable=False)  # noqa: DJ001

    class Meta:
        verbose_name = _("角色")
        verbose_name_plural = _("角色")
        ordering = ["game", "id"]
        constraints = [models.UniqueConstraint(fields=["game", "name"], name="uniq_character_name")]

    def __str__(self) -> str:
        return self.name

    @property
    def is_alive(self) -> bool:
        return self.status == CharacterStatus.ALIVE


class Substitute(models.Model):
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="substitutes")
    forum_uid = models.CharField(_("论坛 UID"), max_length=32, blank=True)
    forum_username = models.CharField(_("论坛用户名"), max_length=64)
    since = models.DateField(_("接手日期"))
    until = models.DateField(_("结束日期"), null=True, blank=True)

    class Meta:
        verbose_name = _("替补")
        verbose_name_plural = _("替补")

    def __str__(self) -> str:
        return f"{self.forum_username} → {self.character}"


class Audience(models.TextChoices):
    PUBLIC = "public", _("公开")
    DIRECTORS = "directors", _("导演")
    CHARACTER = "character", _("角色")


class Event(models.Model):
    """One line of the append-only, per-game sequenced log."""

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveBigIntegerField()
    stream = models.CharField(max_length=32)
    stream_seq = models.PositiveBigIntegerField()
    kind = models.CharField(_("类型"), max_length=64)
    audience = models.CharField(_("可见范围"), max_length=16, choices=Audience.choices)
    audience_character = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    actor = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    payload = models.JSONField(default=dict)
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(_("理由"), blank=True)
    created_at = models.DateTimeField(_("时间"))

    class Meta:
        verbose_name = _("事件")
        verbose_name_plural = _("事件日志")
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="uniq_event_seq"),
            models.UniqueConstraint(
                fields=["game", "stream", "stream_seq"], name="uniq_event_stream_seq"
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.kind}"


class AnnouncementStatus(models.TextChoices):
    DRAFT = "draft", _("草稿")
    PUBLISHED = "published", _("已发布")


class Announcement(models.Model):
    """公示: drafted by the site or written by a director, then published to everyone."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="announcements")
    day = models.PositiveIntegerField(_("第几天"))
    title = models.CharField(_("标题"), max_length=200)
    body = models.TextField(_("正文"))
    by_site = models.BooleanField(_("系统生成"), default=False)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    status = models.CharField(
        _("状态"),
        max_length=16,
        choices=AnnouncementStatus.choices,
        default=AnnouncementStatus.DRAFT,
    )
    published_at = models.DateTimeField(_("发布时间"), null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("公示")
        verbose_name_plural = _("公示")
        ordering = ["game", "day", "id"]

    def __str__(self) -> str:
        return f"D{self.day} {self.title}"


class TransitionRecord(models.Model):
    """A transition that has happened; the unique key is what makes it happen once."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="transitions")
    day = models.PositiveIntegerField()
    kind = models.CharField(max_length=16, choices=TRANSITION_CHOICES)
    due_at = models.DateTimeField(null=True, blank=True)
    done_at = models.DateTimeField()
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(blank=True)

    class Meta:
        verbose_name = _("阶段切换")
        verbose_name_plural = _("阶段切换")
        ordering = ["game", "done_at"]
        constraints = [
            models.UniqueConstraint(fields=["game", "day", "kind"], name="uniq_transition")
        ]

    def __str__(self) -> str:
        return f"D{self.day} {self.kind}"
