from __future__ import annotations

from dataclasses import dataclass

import pytest

from games.forum.discourse import DiscourseAdapter
from games.forum.discuz import DiscuzAdapter
from games.forum.errors import ForumError, ForumPostingOff
from games.forum.printable import PrintableAdapter
from games.forum.registry import adapter_for
from tests.games.forum.fake_forum import FakeForum


@dataclass
class Site:
    kind: str
    base_url: str = "http://bbs.example/"
    username: str = "导演B"
    password: str = "dao-yan-pass"
    api_key: str = "key"
    api_username: str = "system"
    posting_enabled: bool = False


@pytest.mark.parametrize(
    ("kind", "adapter"),
    [("discuz", DiscuzAdapter), ("discourse", DiscourseAdapter), ("printable", PrintableAdapter)],
)
def test_each_kind_has_its_adapter(kind: str, adapter: type) -> None:
    with adapter_for(Site(kind)) as made:
        assert isinstance(made, adapter)


def test_an_adapter_leaving_its_with_block_closes_its_connections(fake_forum: FakeForum) -> None:
    thread = fake_forum.thread()
    with adapter_for(Site("discuz", base_url=fake_forum.base_url)) as forum:
        forum.fetch(str(thread.tid), after_floor=0)
    with pytest.raises(RuntimeError, match="closed"):
        forum.fetch(str(thread.tid), after_floor=0)


def test_an_unknown_kind_is_a_clear_error() -> None:
    with pytest.raises(ForumError) as caught:
        adapter_for(Site("phpbb"))
    assert "phpbb" in caught.value.text


def test_the_sites_posting_switch_reaches_the_adapter(fake_forum: FakeForum) -> None:
    thread = fake_forum.thread()
    with (
        adapter_for(Site("discuz", base_url=fake_forum.base_url)) as forum,
        pytest.raises(ForumPostingOff),
    ):
        forum.reply(str(thread.tid), "计票")
    assert fake_forum.requests == []
