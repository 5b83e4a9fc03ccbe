"""``manage.py check --deploy`` for the middleware as it really is.

``MIDDLEWARE`` names Django's security, CSRF and clickjacking middleware by subclasses that run
them inline on the event loop (``config/middleware.py``). Django's deploy checks look for the
stock dotted paths alone: they report security.W001–W003 (middleware missing) and then skip
every check that depends on those middleware — HSTS, the SSL redirect, the CSRF cookie,
X-Frame-Options — so the real findings were hidden. Settings silence W001–W003; this check
runs the skipped ones with each subclass seen as the class it extends, and reports a
middleware that is really missing under an id of its own (``site.W001``–``W003``).

It also says when the site still runs on the development key (``site.W009``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.core.checks import CheckMessage, Tags, register
from django.core.checks import Warning as CheckWarning
from django.core.checks.security import base, csrf
from django.utils.module_loading import import_string

Check = Callable[..., Sequence[CheckMessage]]

# Each stock middleware: the id reported when no subclass of it is installed, and Django's
# deploy checks that look at its settings only when its stock path is in MIDDLEWARE.
STOCK: dict[str, tuple[str, tuple[Check, ...]]] = {
    "django.middleware.security.SecurityMiddleware": (
        "site.W001",
        (
            base.check_sts,
            base.check_sts_include_subdomains,
            base.check_sts_preload,
            base.check_content_type_nosniff,
            base.check_ssl_redirect,
            base.check_referrer_policy,
            base.check_cross_origin_opener_policy,
        ),
    ),
    "django.middleware.csrf.CsrfViewMiddleware": ("site.W003", (csrf.check_csrf_cookie_secure,)),
    "django.middleware.clickjacking.XFrameOptionsMiddleware": (
        "site.W002",
        (base.check_xframe_deny,),
    ),
}


def _stock_path(path: str) -> str:
    """The stock middleware's dotted path for a subclass of it, else the path itself."""
    middleware = import_string(path)
    for stock in STOCK:
        if isinstance(middleware, type) and issubclass(middleware, import_string(stock)):
            return stock
    return path


@register(Tags.security, deploy=True)
def check_inline_middleware(
    app_configs: Sequence[AppConfig] | None, **kwargs: Any
) -> list[CheckMessage]:
    seen = [_stock_path(path) for path in settings.MIDDLEWARE]
    messages: list[CheckMessage] = []
    renamed: list[Check] = []
    for stock, (missing_id, checks) in STOCK.items():
        if stock not in seen:
            messages.append(
                CheckWarning(f"MIDDLEWARE has neither {stock} nor a subclass of it.", id=missing_id)
            )
        elif stock not in settings.MIDDLEWARE:  # by a subclass: Django skipped its checks
            renamed.extend(checks)
    from django.test.utils import override_settings  # here: only `check` needs django.test

    with override_settings(MIDDLEWARE=seen):
        for check in renamed:
            messages.extend(check(app_configs))
    return messages


@register(Tags.security, deploy=True)
def check_keys_set(app_configs: Sequence[AppConfig] | None, **kwargs: Any) -> list[CheckMessage]:
    """The development fallback key is long enough for Django's own check (security.W009) to
    pass it; a site that runs on it signs sessions, and digests passwords, with a key that is
    in the source."""
    dev_key = getattr(settings, "DEV_SECRET_KEY", None)
    return [
        CheckWarning(
            f"{name} is the development key from config/settings.py: set it (README).",
            id="site.W009",
        )
        for name in ("SECRET_KEY", "PASSWORD_DIGEST_KEY")
        if dev_key is not None and getattr(settings, name, None) == dev_key
    ]
