"""The forum in the admin: sites (staff only; their secrets are never shown back), each game
day's threads with where their sync stands, the stored posts, and the directors' accounts.

A director sees only the threads of the games they run. Syncing now, rechecking every floor and
importing a printable page (打印本页) go through ``games.forum_services``; a forum's refusal is
shown as the page's error, and nothing already stored is lost.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import Count, QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils import timezone
from django.utils.html import format_html
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.http import require_POST

from games import forum_services
from games.admin_base import DirectorScoped, ReadOnly
from games.engine.errors import RuleError
from games.models import DirectorForumAccount, ForumPost, ForumSite, ForumThread

# --- sites ---------------------------------------------------------------------------------------


class ForumSiteForm(forms.ModelForm):
    """Secrets are write-only: the page never holds them, and a blank field keeps the old one."""

    base_url = forms.URLField(
        label=_("论坛地址"),
        required=False,
        assume_scheme="http",
        help_text=_("如 http://www.mistytown.cn/"),
    )
    password = forms.CharField(
        label=_("论坛密码"),
        required=False,
        strip=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=_("不会显示；留空则保持不变。"),
    )
    api_key = forms.CharField(
        label=_("API Key"),
        required=False,
        widget=forms.PasswordInput(render_value=False),
        help_text=_("Discourse 使用；不会显示，留空则保持不变。"),
    )

    class Meta:
        model = ForumSite
        fields = (
            "name",
            "kind",
            "base_url",
            "username",
            "password",
            "api_key",
            "api_username",
            "posting_enabled",
        )

    def clean_password(self) -> str:
        return self.cleaned_data["password"] or self.instance.password

    def clean_api_key(self) -> str:
        return self.cleaned_data["api_key"] or self.instance.api_key


@admin.register(ForumSite)
class ForumSiteAdmin(admin.ModelAdmin):
    form = ForumSiteForm
    list_display = (
        "name",
        "kind",
        "base_url",
        "username",
        "has_password",
        "has_api_key",
        "posting_enabled",
    )

    @admin.display(boolean=True, description=_("已设密码"))
    def has_password(self, obj: ForumSite) -> bool:
        return bool(obj.password)

    @admin.display(boolean=True, description=_("已设 API Key"))
    def has_api_key(self, obj: ForumSite) -> bool:
        return bool(obj.api_key)


# --- threads -------------------------------------------------------------------------------------


class PrintableForm(forms.Form):
    text = forms.CharField(
        label=_("粘贴打印页"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 12, "cols": 100}),
        help_text=_("论坛帖子的「打印本页」：网页源代码或复制的文字均可。"),
    )
    page = forms.FileField(label=_("或上传保存的打印页"), required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        upload = data.get("page")
        if upload is not None:
            raw = upload.read()
            # Discuz sites serve UTF-8 or GBK; GB18030 reads every GBK page.
            try:
                data["text"] = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                data["text"] = raw.decode("gb18030", errors="replace")
        if not (data.get("text") or "").strip():
            raise forms.ValidationError(_("请粘贴打印页内容或上传文件。"))
        return data


@admin.register(ForumThread)
class ForumThreadAdmin(DirectorScoped):
    list_display = (
        "game",
        "day",
        "kind",
        "external_id",
        "last_synced_at",
        "stored",
        "last_floor",
        "status",
    )
    list_filter = (("game", admin.RelatedOnlyFieldListFilter), "kind")
    list_select_related = ("game",)
    ordering = ("-game", "-day", "kind")
    # Which thread it is; fixed once posts are stored from it.
    identity = ("game", "day", "kind", "external_id")
    readonly_fields = (
        "last_synced_at",
        "rechecked_at",
        "last_floor",
        "stored",
        "failures",
        "retry_at",
        "last_error",
    )
    fields = (*identity, *readonly_fields)
    actions = ("sync_now", "recheck_now")
    change_form_template = "admin/games/forumthread/change_form.html"

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        return super().get_queryset(request).annotate(stored_count=Count("posts"))

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # Stored posts belong to the thread they came from: register another one instead.
        if obj is not None and obj.posts.exists():
            return self.fields
        return self.readonly_fields

    @admin.display(description=_("已存楼数"), ordering="stored_count")
    def stored(self, obj: ForumThread) -> int:
        return getattr(obj, "stored_count", None) or obj.posts.count()

    @admin.display(description=_("状态"))
    def status(self, obj: ForumThread) -> str:
        if not obj.last_error:
            return gettext("正常") if obj.last_synced_at else gettext("尚未同步")
        return format_html('<b style="color: var(--error-fg)">{}</b>', _thread_error(obj))

    def get_urls(self) -> list[URLPattern]:
        wrap = self.admin_site.admin_view
        return [
            path(
                "<int:thread_id>/sync/",
                wrap(require_POST(self.sync_view)),
                name="games_forumthread_sync",
            ),
            path(
                "<int:thread_id>/printable/",
                wrap(self.printable_view),
                name="games_forumthread_printable",
            ),
            *super().get_urls(),
        ]

    def _thread(self, request: HttpRequest, thread_id: int) -> ForumThread:
        thread = self.get_queryset(request).filter(pk=thread_id).first()
        if thread is None or not self.has_change_permission(request, thread):
            raise Http404
        return thread

    def _sync(self, request: HttpRequest, thread: ForumThread, *, full: bool) -> None:
        try:
            result = forum_services.forum_thread_sync(thread=thread, full=full)
        except RuleError as exc:
            self.message_user(request, f"{thread.game} {thread}：{exc.text}", messages.ERROR)
        else:
            self.message_user(request, f"{thread.game} {thread}：{_result_text(result)}")

    def sync_view(self, request: HttpRequest, thread_id: int) -> HttpResponse:
        thread = self._thread(request, thread_id)
        self._sync(request, thread, full="full" in request.POST)
        back = request.POST.get("next", "")
        if not url_has_allowed_host_and_scheme(back, {request.get_host()}):
            back = reverse("admin:games_forumthread_change", args=[thread.pk])
        return HttpResponseRedirect(back)

    def printable_view(self, request: HttpRequest, thread_id: int) -> HttpResponse:
        thread = self._thread(request, thread_id)
        form = PrintableForm(request.POST or None, request.FILES or None)
        if request.method == "POST" and form.is_valid():
            try:
                result = forum_services.forum_printable_import(
                    thread=thread, text=form.cleaned_data["text"]
                )
            except RuleError as exc:
                form.add_error(None, exc.text)
            else:
                self.message_user(request, f"{thread.game} {thread}：{_result_text(result)}")
                return HttpResponseRedirect(
                    reverse("admin:games_forumthread_change", args=[thread.pk])
                )
        context = {
            **self.admin_site.each_context(request),
            "title": gettext("导入打印页"),
            "thread": thread,
            "form": form,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/games/forumthread/printable.html", context)

    @admin.action(description=_("立即同步所选帖子"))
    def sync_now(self, request: HttpRequest, queryset: QuerySet[ForumThread]) -> None:
        for thread in queryset.select_related("game"):
            self._sync(request, thread, full=False)

    @admin.action(description=_("全帖重新核对所选帖子（检查编辑、重新对应作者）"))
    def recheck_now(self, request: HttpRequest, queryset: QuerySet[ForumThread]) -> None:
        for thread in queryset.select_related("game"):
            self._sync(request, thread, full=True)


def _thread_error(thread: ForumThread) -> str:
    if thread.failures and thread.retry_at:
        return gettext("%(error)s（连续失败 %(n)s 次，%(at)s 重试）") % {
            "error": thread.last_error,
            "n": thread.failures,
            "at": timezone.localtime(thread.retry_at).strftime("%m-%d %H:%M"),
        }
    return thread.last_error


def _result_text(result: forum_services.SyncResult) -> str:
    return gettext("新增 %(added)s 楼，发现 %(edited)s 处编辑，已同步到第 %(floor)s 楼。") % {
        "added": result.added,
        "edited": result.edited,
        "floor": result.last_floor,
    }


# --- posts and accounts -------------------------------------------------------------------------


@admin.register(ForumPost)
class ForumPostAdmin(ReadOnly, DirectorScoped):
    """The stored posts, as read (never changed here: the forum is the source)."""

    game_path = "thread__game"
    list_display = (
        "thread",
        "floor",
        "author",
        "character",
        "by_director",
        "anonymous",
        "posted_at",
        "edited_at",
    )
    list_filter = (
        ("thread__game", admin.RelatedOnlyFieldListFilter),
        "thread__kind",
        "thread__day",
        "by_director",
        "anonymous",
        ("edited_at", admin.EmptyFieldListFilter),
    )
    list_select_related = ("thread", "character")
    search_fields = ("author", "text")
    ordering = ("thread", "floor")


@admin.register(DirectorForumAccount)
class DirectorForumAccountAdmin(DirectorScoped):
    list_display = ("game", "forum_username", "forum_uid")
    list_filter = (("game", admin.RelatedOnlyFieldListFilter),)
