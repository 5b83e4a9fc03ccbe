"""Built-in royale rulesets: one JSON file per rule post, validated and registered on import.

``islington_256.json`` is [256] 伊斯灵顿不眠夜, ``kimetsu_252.json`` is [252] 鬼灭之刃. Edit the
data, not code; :func:`load_file` names the broken field when a file does not validate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from royale.engine.ruleset import Ruleset, RulesetError, parse_ruleset, register_ruleset

HERE = Path(__file__).resolve().parent
BUILTIN = ("islington_256", "kimetsu_252")


def load_data(data: dict[str, Any]) -> Ruleset:
    return parse_ruleset(data)


def load_file(path: Path | str) -> Ruleset:
    """Read and validate one ruleset file (raises :class:`RulesetError` naming the field)."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise RulesetError(
            f"(file {path.name}, line {exc.lineno})", f"is not valid JSON: {exc.msg}"
        ) from exc
    ruleset = parse_ruleset(data)
    if ruleset.key != path.stem:
        raise RulesetError("key", f"{ruleset.key!r} does not match the file name {path.stem!r}")
    return ruleset


def builtin_path(key: str) -> Path:
    return HERE / f"{key}.json"


for _key in BUILTIN:
    register_ruleset(load_file(builtin_path(_key)))
