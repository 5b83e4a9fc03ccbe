"""config.layers: a push's messages to many groups in one round trip, received as group_send's."""

from __future__ import annotations

import asyncio
from typing import Any

from channels.layers import get_channel_layer

from config.layers import PubSubChannelLayer


async def _next(layer: Any, channel: str) -> Any:
    return (await asyncio.wait_for(layer.receive(channel), timeout=5))["n"]


async def test_each_group_gets_its_messages_in_order_and_a_leaver_none() -> None:
    layer = get_channel_layer()
    assert isinstance(layer, PubSubChannelLayer)  # the site's own, on the real Redis
    one, two, other = [await layer.new_channel() for _ in range(3)]
    await layer.group_add("layer-test-a", one)
    await layer.group_add("layer-test-a", two)
    await layer.group_add("layer-test-b", other)
    await layer.group_send_many(
        [
            ("layer-test-a", {"type": "t", "n": 1}),
            ("layer-test-b", {"type": "t", "n": 2}),
            ("layer-test-nobody", {"type": "t", "n": 0}),
            ("layer-test-a", {"type": "t", "n": 3}),
        ]
    )
    assert [await _next(layer, one), await _next(layer, one)] == [1, 3]
    assert [await _next(layer, two), await _next(layer, two)] == [1, 3]
    assert await _next(layer, other) == 2

    await layer.group_discard("layer-test-a", one)
    await layer.group_send_many([("layer-test-a", {"type": "t", "n": 4})])
    assert await _next(layer, two) == 4
    # A channel out of the group hears nothing more (it is given a moment to).
    waiting = asyncio.ensure_future(layer.receive(one))
    done, _ = await asyncio.wait({waiting}, timeout=0.3)
    assert not done
    waiting.cancel()
    await asyncio.gather(waiting, return_exceptions=True)
    await layer.flush()
