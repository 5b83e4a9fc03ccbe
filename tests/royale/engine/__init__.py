"""Tests of the pure royale engine (no database, no Django)."""

from __future__ import annotations
