"""What the shared library's tests share: a config without a reranker (the server and its databases come from
tests/conftest.py's pg_server and pg_address)."""

from __future__ import annotations

import pytest


@pytest.fixture
def config(make_config):
    return make_config(models={"reranker": ""})
