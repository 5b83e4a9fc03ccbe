"""Forum adapters: one interface over the Discuz! mobile API, Discourse and printable pages.

``registry.adapter_for(site)`` gives a site's adapter. ``text`` is pure (no HTTP, no Django), so
pure code such as the ballot parser may import it.
"""
