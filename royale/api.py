from __future__ import annotations

from ninja import Router

# The royale kind's endpoints arrive with its own issue; the router is mounted already.
router = Router(tags=["royale"])
