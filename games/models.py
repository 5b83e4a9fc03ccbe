"""What every game kind shares: games, characters, the event log, announcements, transitions."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
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
    # Set on the instance games.services.game_lock reads under the row lock (not a column):
    # what a kind keeps of its state for the rest of that locked step goes on that one alone.
    row_locked = False

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
    # How many calendar days one game day spans ([061]: 一般讨论日持续两天), and whether a span
    # that touches a Saturday or Sunday gets one more (每逢周末时讨论日延长一天).
    day_span = models.PositiveSmallIntegerField(
        _("讨论日天数"), default=1, help_text=_("一个游戏日跨几个自然日（[061] 为 2）")
    )
    weekend_extra = models.BooleanField(
        _("逢周末延长一天"), default=False, help_text=_("讨论日跨周六或周日时多一天")
    )
    # The ruleset's labelled deadlines of a night, relative to nothing but the clock
    # ([096]: 21:00 前【藏匿】…); shown in the calendar, the engine keeps its own copy.
    night_stages = models.JSONField(_("夜间时限"), default=list, blank=True)
    day = models.PositiveIntegerField(_("第几天"), default=0)
    phase = models.CharField(_("阶段"), max_length=16, choices=PHASE_CHOICES, default="before")
    # A paused game accepts no action and runs no scheduled transition until resumed.
    paused = models.BooleanField(_("暂停"), default=False)
    seed = models.CharField(_("种子（保密）"), max_length=128, editable=False)
    seed_hash = models.CharField(_("种子 SHA-256"), max_length=64, editable=False)
    seed_revealed = models.BooleanField(_("已公开种子"), default=False)
    forum_site = models.ForeignKey(
        "ForumSite", null=True, blank=True, on_delete=models.PROTECT, verbose_name=_("论坛")
    )
    # Last global sequence number and each stream's last number; both only change while the
    # row is locked, which is what keeps the log free of gaps and duplicates.
    seq = models.PositiveBigIntegerField(default=0, editable=False)
    stream_seqs = models.JSONField(default=dict, editable=False)
    # A digest of the rooms and members the rules gave at the last ``rooms_sync`` that wrote
    # them (games.room_services): the same rules again mean the rooms stand as they are, so a
    # message's send does not read and compare every room's members. Written with the rooms,
    # under the row lock, in their transaction, and read from the locked instance the log's
    # writer holds, as ``seq`` is (a stale one would already break the log's numbering).
    rooms_digest = models.CharField(max_length=32, blank=True, default="", editable=False)
    created_at = models.DateTimeField(_("创建时间"), default=timezone.now, editable=False)

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
        # [061]: 加速/延时 change the days' dates (RULINGS [061] 14; the ruleset's schedule data)
        paces = (
            {p.day: p.pace for p in self.paces.all()}
            if tt.schedule_for(self.ruleset).pace_days
            else {}
        )
        return tt.Timetable(
            start_date=self.start_date,
            times=times,
            overrides=overrides,
            day_span=self.day_span,
            weekend_extra=self.weekend_extra,
            paces=paces,
        )


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
    # The floor of its sign-up post (报名帖): the 电梯楼 order of rulesets that use it.
    signup_floor = models.PositiveIntegerField(_("报名楼层"), null=True, blank=True)
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


class CharacterSession(models.Model):
    """A session signed in as a character: what a credential reset signs out (the session store
    cannot be searched by its contents)."""

    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="+")
    session_key = models.CharField(max_length=64)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["character", "session_key"], name="uniq_char_session")
        ]

    def __str__(self) -> str:
        return f"{self.character} · {self.session_key[:6]}…"


class Substitute(models.Model):
    """替补: a new player takes a character over from a date (每名角色仅限更换一次替补)."""

    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="substitutes", verbose_name=_("角色")
    )
    forum_uid = models.CharField(_("论坛 UID"), max_length=32, blank=True)
    forum_username = models.CharField(_("论坛用户名"), max_length=64)
    since = models.DateField(_("接手日期"))
    until = models.DateField(_("结束日期"), null=True, blank=True)
    # Who the previous player was, kept because the character's own account fields stay as the
    # original sign-up (the forum's posts before ``since`` are still theirs).
    reason = models.TextField(_("理由"), blank=True)
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("导演"),
    )
    created_at = models.DateTimeField(_("登记时间"), default=timezone.now)

    class Meta:
        verbose_name = _("替补")
        verbose_name_plural = _("替补")
        constraints = [
            models.UniqueConstraint(fields=["character"], name="uniq_substitute_per_character")
        ]

    def __str__(self) -> str:
        return f"{self.forum_username} → {self.character}"


class Assistant(models.Model):
    """场外助理: someone who may talk privately with a player (never posts or votes for it)."""

    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="assistants", verbose_name=_("角色")
    )
    forum_uid = models.CharField(_("论坛 UID"), max_length=32, blank=True)
    forum_username = models.CharField(_("论坛用户名"), max_length=64)
    note = models.CharField(_("备注"), max_length=200, blank=True)
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("导演"),
    )
    created_at = models.DateTimeField(_("登记时间"), default=timezone.now)

    class Meta:
        verbose_name = _("场外助理")
        verbose_name_plural = _("场外助理")
        constraints = [
            models.UniqueConstraint(fields=["character", "forum_username"], name="uniq_assistant")
        ]

    def __str__(self) -> str:
        return f"{self.forum_username} · {self.character}"


class Audience(models.TextChoices):
    PUBLIC = "public", _("公开")
    DIRECTORS = "directors", _("导演")
    CHARACTER = "character", _("角色")
    ROOM = "room", _("群聊")


class Event(models.Model):
    """One line of the append-only, per-game sequenced log."""

    game = models.ForeignKey(
        Game, on_delete=models.PROTECT, related_name="events", verbose_name=_("游戏")
    )
    seq = models.PositiveBigIntegerField(_("序号"))
    stream = models.CharField(_("频道"), max_length=32)
    stream_seq = models.PositiveBigIntegerField(_("频道序号"))
    kind = models.CharField(_("类型"), max_length=64)
    audience = models.CharField(_("可见范围"), max_length=16, choices=Audience.choices)
    audience_character = models.ForeignKey(
        Character,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("可见角色"),
    )
    actor = models.ForeignKey(
        Character,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("行动者"),
    )
    room = models.ForeignKey(
        "Room",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("群聊"),
    )
    payload = models.JSONField(_("内容"), default=dict)
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("导演"),
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


class RoomKind(models.TextChoices):
    LOBBY = "lobby", _("联谊群")
    INBOX = "inbox", _("私聊导演")
    TEAM = "team", _("共群")
    PHONE = "phone", _("通话")


class Room(models.Model):
    """A game's private talk on the site: the lobby, a player's inbox with the directors, a
    faction's or a <团队> group's 共群, a phone call. Who is in it is the rules' (the kind's
    engine, ``games.room_services.rooms_sync``), never typed by hand; its messages are events
    of the game's log in the room's stream."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="rooms")
    # The kind's stable key ("team:wolves", "phone:3", "inbox:12"); players never see it.
    key = models.CharField(_("键"), max_length=64)
    # What a player's page and frames name the room by: random, so it tells nothing.
    token = models.CharField(_("标识"), max_length=16, unique=True)
    kind = models.CharField(_("类型"), max_length=16, choices=RoomKind.choices)
    name = models.CharField(_("名称"), max_length=120)
    # The inbox's player (the room's one member besides the directors).
    owner = models.ForeignKey(
        Character, null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    created_at = models.DateTimeField(_("创建时间"))
    # The rules no longer hold it (a call after the vote, a group with nobody left).
    closed_at = models.DateTimeField(_("关闭时间"), null=True, blank=True)

    class Meta:
        verbose_name = _("群聊")
        verbose_name_plural = _("群聊")
        ordering = ["game", "id"]
        constraints = [models.UniqueConstraint(fields=["game", "key"], name="uniq_room_key")]

    def __str__(self) -> str:
        return self.name


class RoomMember(models.Model):
    """One stay of a character in a room: from its joining (it reads the messages numbered
    after ``since``) until it left. A character that comes back starts a new stay."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="stays")
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="+")
    since = models.PositiveBigIntegerField(_("加入时的频道序号"))
    joined_at = models.DateTimeField(_("加入时间"))
    left_at = models.DateTimeField(_("离开时间"), null=True, blank=True)
    # The room's last message number it could read.
    until = models.PositiveBigIntegerField(_("离开时的频道序号"), null=True, blank=True)

    class Meta:
        verbose_name = _("群成员")
        verbose_name_plural = _("群成员")
        ordering = ["room", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["room", "character"],
                condition=models.Q(left_at__isnull=True),
                name="uniq_room_member_current",
            )
        ]

    def __str__(self) -> str:
        return f"{self.room_id}:{self.character_id}"


class ActionAnswer(models.Model):
    """A player's applied request, by idempotency key, with its answer: a retry gets the same
    answer (``games.idempotency``). A refused request changed nothing and is not kept, so
    retrying it asks the rules again. Each game kind keeps its own table."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    character = models.ForeignKey(Character, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    request = models.JSONField()
    response = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.character} {self.key}"


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


# --- the forum: sites, each game day's threads, their posts (sync) --------------------------


class ForumKind(models.TextChoices):
    DISCUZ = "discuz", _("Discuz! X3.2（手机版接口）")
    DISCOURSE = "discourse", _("Discourse")
    PRINTABLE = "printable", _("Discuz 打印页（只读，无需登录）")


class ForumSite(models.Model):
    """A forum the games are played on. Managed by staff; its secrets are never shown back."""

    name = models.CharField(_("名称"), max_length=100)
    kind = models.CharField(_("论坛程序"), max_length=16, choices=ForumKind.choices)
    base_url = models.URLField(
        _("论坛地址"), blank=True, help_text=_("如 http://www.mistytown.cn/")
    )
    username = models.CharField(_("论坛账号"), max_length=64, blank=True)
    # Stored as given: the site must send them to the forum, so a digest would not do.
    password = models.CharField(_("论坛密码"), max_length=128, blank=True)
    api_key = models.CharField(_("API Key"), max_length=128, blank=True)
    api_username = models.CharField(_("API 用户名"), max_length=64, blank=True)
    posting_enabled = models.BooleanField(_("允许向论坛回帖"), default=False)

    class Meta:
        verbose_name = _("论坛")
        verbose_name_plural = _("论坛")
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class ThreadKind(models.TextChoices):
    SIGNUP = "signup", _("报名帖")
    RULES = "rules", _("规则帖")
    DISCUSSION = "discussion", _("讨论帖")
    VOTE = "vote", _("投票帖")
    PROGRESS = "progress", _("进程帖")


class ForumThread(models.Model):
    """One game day's thread of one kind, and where its sync stands."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="forum_threads", verbose_name=_("游戏")
    )
    day = models.PositiveIntegerField(_("第几天"))
    kind = models.CharField(_("帖子类型"), max_length=16, choices=ThreadKind.choices)
    external_id = models.CharField(
        _("帖子编号"), max_length=32, help_text=_("Discuz 的 tid 或 Discourse 的 topic id")
    )
    last_floor = models.PositiveIntegerField(_("已同步到楼层"), default=0)
    # When the fetch that was last stored began (not ended): a slower, older fetch that
    # finishes later must not overwrite what a newer one stored.
    last_synced_at = models.DateTimeField(_("上次同步"), null=True, blank=True)
    # Edits are only seen by fetching old floors again, which a sync does now and then.
    rechecked_at = models.DateTimeField(_("上次全帖核对"), null=True, blank=True)
    last_error = models.TextField(_("最近错误"), blank=True)
    failures = models.PositiveIntegerField(_("连续失败次数"), default=0)
    retry_at = models.DateTimeField(_("下次尝试"), null=True, blank=True)

    class Meta:
        verbose_name = _("论坛帖子")
        verbose_name_plural = _("论坛帖子")
        ordering = ["game", "day", "kind"]
        constraints = [
            models.UniqueConstraint(fields=["game", "day", "kind"], name="uniq_forum_thread")
        ]

    def __str__(self) -> str:
        return f"D{self.day} {self.get_kind_display()} ({self.external_id})"


class ForumPost(models.Model):
    """One floor as last fetched; a later edit replaces the text (the log keeps the old one)."""

    thread = models.ForeignKey(
        ForumThread, on_delete=models.CASCADE, related_name="posts", verbose_name=_("帖子")
    )
    external_id = models.CharField(_("帖子 ID"), max_length=100)
    floor = models.PositiveIntegerField(_("楼层"))
    author = models.CharField(_("作者"), max_length=64)
    author_uid = models.CharField(_("作者 UID"), max_length=32, blank=True)
    character = models.ForeignKey(
        Character,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="forum_posts",
        verbose_name=_("角色"),
    )
    by_director = models.BooleanField(_("导演发帖"), default=False)
    anonymous = models.BooleanField(_("匿名"), default=False)
    posted_at = models.DateTimeField(_("发帖时间"))
    text = models.TextField(_("内容"))
    reply_to = models.CharField(_("回复的帖子 ID"), max_length=100, blank=True)  # "" for none
    content_hash = models.CharField(max_length=64, editable=False)
    edited_at = models.DateTimeField(_("发现编辑"), null=True, blank=True)

    class Meta:
        verbose_name = _("论坛回帖")
        verbose_name_plural = _("论坛回帖")
        ordering = ["thread", "floor", "id"]
        constraints = [
            models.UniqueConstraint(fields=["thread", "external_id"], name="uniq_forum_post")
        ]
        indexes = [models.Index(fields=["thread", "floor"], name="forum_post_floor")]

    def __str__(self) -> str:
        return f"#{self.floor} {self.author}"


class DirectorForumAccount(models.Model):
    """A forum account a game's directors post with (such as ``[061]导演B``)."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="director_accounts", verbose_name=_("游戏")
    )
    forum_uid = models.CharField(_("论坛 UID"), max_length=32, blank=True)
    forum_username = models.CharField(_("论坛用户名"), max_length=64, blank=True)

    class Meta:
        verbose_name = _("导演论坛账号")
        verbose_name_plural = _("导演论坛账号")
        constraints = [
            models.CheckConstraint(
                condition=~models.Q(forum_uid="", forum_username=""), name="director_account_named"
            )
        ]

    def __str__(self) -> str:
        return self.forum_username or self.forum_uid


# --- penalty cards (判罚) and the day's pace (加速/延时) -----------------------------------------


class CardColor(models.TextChoices):
    BLUE = "blue", _("蓝牌")
    YELLOW = "yellow", _("黄牌")
    RED = "red", _("红牌")


class CardSource(models.TextChoices):
    PROPOSED = "proposed", _("系统提议")
    MANUAL = "manual", _("导演判罚")
    ESCALATION = "escalation", _("累计升级")


class CardStatus(models.TextChoices):
    PROPOSED = "proposed", _("待审核")
    CONFIRMED = "confirmed", _("已确认")
    REJECTED = "rejected", _("已驳回")


class Card(models.Model):
    """A card of the ledger (判罚记录): proposed by the site or given by a director, reviewed
    by forum staff; three confirmed blue make a yellow, three yellow a red (``merged_into``)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="cards")
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="cards", verbose_name=_("角色")
    )
    color = models.CharField(_("颜色"), max_length=8, choices=CardColor.choices)
    # A code of the ruleset's catalogue; blank for a card the ledger made (escalation).
    reason = models.CharField(_("判罚依据"), max_length=32, blank=True)
    note = models.TextField(_("说明"), blank=True)
    day = models.PositiveIntegerField(_("第几天"))
    source = models.CharField(_("来源"), max_length=16, choices=CardSource.choices)
    status = models.CharField(_("状态"), max_length=16, choices=CardStatus.choices)
    # What the site counted when it proposed the card (posts, votes, the run of quiet days).
    facts = models.JSONField(_("统计"), default=dict, blank=True)
    proposed_at = models.DateTimeField(_("提出时间"))
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("判罚导演"),
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        verbose_name=_("审核人"),
    )
    reviewed_at = models.DateTimeField(_("审核时间"), null=True, blank=True)
    review_reason = models.TextField(_("审核理由"), blank=True)
    merged_into = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="merged_from",
        verbose_name=_("合并为"),
    )
    # What a red card did to the character (the kind's handler says), e.g. 红牌罚下 / 挂机.
    effect = models.CharField(_("执行结果"), max_length=200, blank=True)
    # The director's call on a red card: does the character's faction lose (判负)?
    faction_loses = models.BooleanField(_("阵营判负"), null=True, blank=True)
    faction_decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    faction_decided_at = models.DateTimeField(null=True, blank=True)
    faction_reason = models.TextField(_("判负理由"), blank=True)

    class Meta:
        verbose_name = _("判罚")
        verbose_name_plural = _("判罚")
        ordering = ["game", "day", "id"]
        constraints = [
            # The day's close proposes each (character, reason) once, however often it is run.
            models.UniqueConstraint(
                fields=["game", "character", "day", "reason"],
                condition=models.Q(source="proposed"),
                name="uniq_card_proposal",
            )
        ]
        indexes = [models.Index(fields=["status", "proposed_at"], name="card_queue")]

    def __str__(self) -> str:
        return f"D{self.day} {self.character} {self.get_color_display()}"


class CardReview(Card):
    """The forum staff's review queue, across games (the cards seen from the other side)."""

    class Meta:
        proxy = True
        verbose_name = _("判罚审核")
        verbose_name_plural = _("判罚审核")


class PaceKind(models.TextChoices):
    SPEED_UP = "speed_up", _("加速")
    DELAY = "delay", _("延时")


class SpeedRequest(models.Model):
    """A character's 申请加速/申请延时 of one day: a progress-thread post or the portal button."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="speed_requests")
    day = models.PositiveIntegerField(_("第几天"))
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="+", verbose_name=_("角色")
    )
    kind = models.CharField(_("申请"), max_length=16, choices=PaceKind.choices)
    post = models.ForeignKey(
        ForumPost, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    requested_at = models.DateTimeField(_("申请时间"))

    class Meta:
        verbose_name = _("加速/延时申请")
        verbose_name_plural = _("加速/延时申请")
        ordering = ["game", "day", "requested_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["game", "day", "character", "kind"], name="uniq_speed_request"
            )
        ]

    def __str__(self) -> str:
        return f"D{self.day} {self.character} {self.get_kind_display()}"


class Pace(models.TextChoices):
    NORMAL = "normal", _("正常")
    SPED_UP = "sped_up", _("加速")
    DELAYED = "delayed", _("延时")


class DayPace(models.Model):
    """A day's pace once it is not normal: granted by the requests, or set by a director."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="paces")
    day = models.PositiveIntegerField(_("第几天"))
    pace = models.CharField(_("进程"), max_length=16, choices=Pace.choices)
    since = models.DateTimeField(_("生效时间"))
    # Set by hand (061: 未出局角色减少到一定程度时，导演将自动执行加速): requests no longer
    # change it.
    director = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reason = models.TextField(_("理由"), blank=True)

    class Meta:
        verbose_name = _("讨论日进程")
        verbose_name_plural = _("讨论日进程")
        ordering = ["game", "day"]
        constraints = [models.UniqueConstraint(fields=["game", "day"], name="uniq_day_pace")]

    def __str__(self) -> str:
        return f"D{self.day} {self.get_pace_display()}"


# --- ballots (投票): the names a director lets stand for a character ---------------------------


class VoteAlias(models.Model):
    """Another name a ballot may use for a character (a nickname, a common typo), added by a
    director; names are otherwise matched exactly."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="vote_aliases")
    alias = models.CharField(_("别名"), max_length=64)
    character = models.ForeignKey(
        Character, on_delete=models.CASCADE, related_name="vote_aliases", verbose_name=_("角色")
    )

    class Meta:
        verbose_name = _("投票别名")
        verbose_name_plural = _("投票别名")
        ordering = ["game", "alias"]
        constraints = [models.UniqueConstraint(fields=["game", "alias"], name="uniq_vote_alias")]

    def __str__(self) -> str:
        return f"{self.alias} → {self.character}"
