"""Every refusal the API can answer has an English message: each RuleError class (the engines',
the shells', the edge's) has a ``message_en`` of its own words, with no Chinese in it, and every
raise in the role games' code that gives its own Chinese message gives its English one too
(else an English client reads the class's generic line, or Chinese)."""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings

from games.engine.errors import RuleError

PACKAGES = ("config", "games", "royale", "werewolf")
# Han characters, CJK punctuation (、。「」…) and full-width forms (，：（）…).
CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
BASE = Path(settings.BASE_DIR)


def _import_all() -> None:
    for name in PACKAGES:
        package = importlib.import_module(name)
        for info in pkgutil.walk_packages(package.__path__, f"{name}."):
            if ".migrations" not in info.name:
                importlib.import_module(info.name)


def _subclasses(cls: type[RuleError]) -> Iterator[type[RuleError]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def _rule_errors() -> list[type[RuleError]]:
    _import_all()
    found: set[type[RuleError]] = {RuleError, *_subclasses(RuleError)}
    return [c for c in found if c.__module__.split(".")[0] in PACKAGES]


def test_every_rule_error_code_has_an_english_message_without_chinese() -> None:
    errors = _rule_errors()
    assert len(errors) > 60
    english: dict[str, set[str]] = {}
    for cls in errors:
        assert cls.code, cls
        assert cls.message_en.strip(), cls
        assert not CJK.search(cls.message_en), (cls, cls.message_en)
        english.setdefault(cls.code, set()).add(cls.message_en)
        error = cls.__new__(cls)
        RuleError.__init__(error)
        body = error.as_dict(english=True)
        assert body["code"] == cls.code
        assert not CJK.search(body["message"]), (cls, body)
    # the codes of the role games and the shared shell the portal and the API answer with
    for code in ("game_over", "invalid_target", "repeat_target", "charmed", "not_director"):
        assert code in english, code


def _raises_without_english(path: Path, error_names: set[str]) -> Iterator[str]:
    """Calls of an error class (a capitalised name) whose first argument is a Chinese text,
    with no ``message_en``."""
    source = path.read_text("utf-8")
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name not in error_names and name != "_refuse":
            continue
        text = ast.get_source_segment(source, node.args[0]) or ""
        if name == "_refuse":
            english = len(node.args) >= 2  # night.py's refusals: (text, text_en, reason)
        else:
            english = any(k.arg == "message_en" for k in node.keywords)
        if CJK.search(text) and not english:
            yield f"{path.relative_to(BASE)}:{node.lineno} {name}"


def test_every_chinese_refusal_of_the_role_games_says_it_in_english_too() -> None:
    """werewolf/ and the shared services (the forum clients' refusals, which quote the forum's
    own words, still fall back to their class's English)."""
    names = {c.__name__ for c in _rule_errors()}
    paths = [
        *(BASE / "werewolf").rglob("*.py"),
        BASE / "games" / "services.py",
        BASE / "games" / "card_services.py",
    ]
    missing = [
        line
        for path in sorted(paths)
        if "migrations" not in path.parts
        for line in _raises_without_english(path, names)
    ]
    assert missing == []
