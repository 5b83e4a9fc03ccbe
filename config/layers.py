"""channels_redis's pub/sub layer, with many groups' messages published in one round trip.

``group_send`` is one ``PUBLISH`` awaited under the shard connection's lock: a room message to 40
members was 40 round trips one after another, each also waiting for the event loop to get the
GIL back from the request threads (measured by tests/bench/bench_rooms.py: 30-45 ms a message on
a busy server). ``group_send_many`` sends the same ``PUBLISH`` commands, to the same channels,
each group's messages in order, as one pipeline per shard: what each subscriber receives, and
when a group stops receiving (its members' own groups, see games.room_services), is unchanged.

It reaches into the layer's per-loop object and its shards (channels_redis 4.3, pinned in
constraints.txt); tests/games/test_live_layer.py publishes through it to real sockets, so an
upgrade that moves them fails there rather than in production.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from channels_redis.pubsub import RedisPubSubChannelLayer


class PubSubChannelLayer(RedisPubSubChannelLayer):
    async def group_send_many(self, messages: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """``group_send(group, message)`` for each pair, one pipeline of PUBLISH per shard."""
        layer = self._get_layer()
        by_shard: dict[int, tuple[Any, list[tuple[str, bytes]]]] = {}
        for group, message in messages:
            channel = layer._get_group_channel_name(group)
            shard = layer._get_shard(channel)
            by_shard.setdefault(id(shard), (shard, []))[1].append(
                (channel, self.serialize(message))
            )
        for shard, published in by_shard.values():
            # The shard's lock keeps these in order with its other publishes and subscribes.
            async with shard._lock:
                shard._ensure_redis()
                pipe = shard._redis.pipeline(transaction=False)
                for channel, data in published:
                    pipe.publish(channel, data)
                await pipe.execute()
