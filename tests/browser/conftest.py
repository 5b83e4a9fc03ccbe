"""Browser tests: headless Chromium (Playwright) against a real daphne serving this project.

The server is ``python -m daphne config.asgi:application`` in a process of its own — what
``make run`` serves — on the test database (the SQLite file or the PostgreSQL database that
pytest-django made) and the same Redis (``REDIS_URL``): a push from the test process goes
through the real channel layer to the server, and over the real websocket to the browser.
Tests using it must be transactional (``django_db(transaction=True)``): the server only sees
what is committed.

Chromium is Debian's ``chromium`` (Playwright's own browser builds are never downloaded); the
tests marked ``browser`` are skipped, with the reason, only when no chromium is on PATH.
"""

from __future__ import annotations

import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest
from playwright.async_api import (
    Browser,
    BrowserContext,
    ConsoleMessage,
    Page,
    Response,
    async_playwright,
)

from tests.bench.support import process_stop

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_NAMES = ("chromium", "chromium-browser")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
NO_CHROMIUM = (
    "no chromium binary on PATH (looked for: "
    + ", ".join(CHROMIUM_NAMES)
    + "); install Debian's: apt-get install chromium"
)
READY_SECONDS = 30.0  # daphne must listen and answer /api/ping within this
# Playwright's waits for actions (clicks, fills), as long as its expect()'s default: a live
# push reaches the page in well under a second here.
WAIT_MS = 5_000
LISTENING = re.compile(r"Listening on TCP address 127\.0\.0\.1:(\d+)")
EXCEPTION_LINE = re.compile(r"^(Traceback|[A-Za-z_][\w.]*(Error|Exception)\b).*$", re.MULTILINE)


def chromium_path() -> str | None:
    for name in CHROMIUM_NAMES:
        found = shutil.which(name)
        if found:
            return found
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Decided before any fixture runs, so a machine without chromium starts no server either.
    if chromium_path() is not None:
        return
    skip = pytest.mark.skip(reason=NO_CHROMIUM)
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


class LiveServer:
    """A daphne process serving the project; its log is a file read back on demand."""

    def __init__(self, url: str, log: Path) -> None:
        self.url = url
        self.log = log

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def mark(self) -> int:
        """Where the log ends now: ``errors(since=...)`` reads only what comes after."""
        return len(self.log_text())

    def errors(self, since: int = 0) -> list[str]:
        """Tracebacks and exception lines the server logged after ``since``."""
        return [m.group(0)[:300] for m in EXCEPTION_LINE.finditer(self.log_text()[since:])]


def _server_env(settings_dict: dict[str, Any]) -> dict[str, str]:
    """This process's environment, with the database pointed at the test database."""
    env = dict(os.environ)
    env["DJANGO_SETTINGS_MODULE"] = "config.settings"
    # daphne logs the port it bound at INFO ("Listening on TCP address ...").
    env["LOG_LEVEL"] = "INFO"
    # [096]'s rules are being written: its browser test deals it (no other test names it).
    env["WEREWOLF_PREVIEW_RULESETS"] = "1"
    engine = settings_dict["ENGINE"]
    if engine.endswith("sqlite3"):
        env.pop("DATABASE_URL", None)
        env["SQLITE_PATH"] = str(settings_dict["NAME"])
    elif engine.endswith("postgresql"):
        user = quote(str(settings_dict.get("USER") or "postgres"), safe="")
        password = settings_dict.get("PASSWORD") or ""
        auth = f"{user}:{quote(str(password), safe='')}" if password else user
        host = settings_dict.get("HOST") or "127.0.0.1"
        port = settings_dict.get("PORT") or "5432"
        name = quote(str(settings_dict["NAME"]), safe="")
        env["DATABASE_URL"] = f"postgres://{auth}@{host}:{port}/{name}"
    else:
        raise RuntimeError(f"browser tests: no live server for database engine {engine!r}")
    return env


def _wait_listening(process: subprocess.Popen[bytes], log: Path) -> int:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        found = LISTENING.search(log.read_text(errors="replace"))
        if found:
            return int(found.group(1))
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode} before listening")
        time.sleep(0.05)
    raise RuntimeError(f"daphne did not listen within {READY_SECONDS:.0f} s")


def _wait_answering(process: subprocess.Popen[bytes], port: int) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"daphne exited with {process.returncode} before answering")
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
        try:
            connection.request("GET", "/api/ping")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        finally:
            connection.close()
        time.sleep(0.05)
    raise RuntimeError(f"daphne did not answer /api/ping within {READY_SECONDS:.0f} s")


@pytest.fixture(scope="module")
def daphne_server(django_db_setup: None) -> Iterator[LiveServer]:
    """daphne on a loopback port the OS picks (no race for a free one), on the test database;
    one per module, stopped after it (so it never outlives the browser tests, nor the test
    database)."""
    if chromium_path() is None:  # only browser tests use it; never start it for nothing
        pytest.skip(NO_CHROMIUM)
    from django.db import connection

    folder = Path(tempfile.mkdtemp(prefix="wuyu-browser-"))
    log = folder / "daphne.log"
    command = [
        sys.executable,
        "-m",
        "daphne",
        "-e",
        "tcp:port=0:interface=127.0.0.1",
        "config.asgi:application",
    ]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env=_server_env(connection.settings_dict),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    ok = False
    try:
        port = _wait_listening(process, log)
        _wait_answering(process, port)
        yield LiveServer(f"http://127.0.0.1:{port}", log)
        ok = True
    finally:
        process_stop(process)
        if not ok:
            print(f"--- daphne log (tail) ---\n{log.read_text(errors='replace')[-4000:]}")
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    """Debian's headless Chromium, one per test (launching it takes a fraction of a second)."""
    executable = chromium_path()
    if executable is None:
        pytest.skip(NO_CHROMIUM)
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=executable, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield launched
        finally:
            await launched.close()


@pytest.fixture
async def context(browser: Browser, daphne_server: LiveServer) -> AsyncIterator[BrowserContext]:
    """A fresh browser profile on the live server, in Chinese (the site's language)."""
    made = await browser.new_context(base_url=daphne_server.url, locale="zh-CN")
    made.set_default_timeout(WAIT_MS)
    try:
        yield made
    finally:
        await made.close()


class PageErrors:
    """What went wrong in the page: uncaught script errors, console errors, and responses of
    4xx/5xx (with their address; the console's own line for those names none)."""

    def __init__(self, page: Page) -> None:
        self.seen: list[str] = []
        page.on("pageerror", lambda error: self.seen.append(f"pageerror: {error}"))
        page.on("console", self._console)
        page.on("response", self._response)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type == "error" and not message.text.startswith("Failed to load resource"):
            self.seen.append(f"console.error: {message.text}")

    def _response(self, response: Response) -> None:
        # Chromium asks for /favicon.ico on its own, after the page, whenever it likes; the
        # site has none (and no page links one), so that answer is no error of the page's.
        if response.status >= 400 and urlsplit(response.url).path != "/favicon.ico":
            self.seen.append(f"{response.status} {response.request.method} {response.url}")


@pytest.fixture
async def page(context: BrowserContext) -> AsyncIterator[Page]:
    opened = await context.new_page()
    try:
        yield opened
    finally:
        await opened.close()
