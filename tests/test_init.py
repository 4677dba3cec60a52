"""The package's own names: what every process has without importing more."""

from __future__ import annotations

import sys
import types

import gitflow_harness


def test_the_mapping_proxy_is_the_one_types_names() -> None:
    proxy = gitflow_harness.MappingProxyType({"a": 1})
    assert gitflow_harness.MappingProxyType is types.MappingProxyType
    assert proxy["a"] == 1
    assert isinstance(proxy, types.MappingProxyType)


def test_import_module_returns_the_module_itself() -> None:
    module = gitflow_harness.import_module("gitflow_harness.store.digest")
    assert module.__name__ == "gitflow_harness.store.digest"
    assert module is sys.modules["gitflow_harness.store.digest"]
