"""Shared fixtures: the app, its test client, and the fixture files."""

from __future__ import annotations

import os

import pytest

from app import create_app

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")


@pytest.fixture
def app():
    return create_app({"TESTING": True})


@pytest.fixture
def client(app):
    return app.test_client()


def fixture_path(*parts: str) -> str:
    return os.path.join(FIXTURES, *parts)
