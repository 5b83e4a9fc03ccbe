"""Tests of the royale app."""

from __future__ import annotations
