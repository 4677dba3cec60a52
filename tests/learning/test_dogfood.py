"""This repository's own lessons pass its own checks."""

from __future__ import annotations

import datetime as dt

from gitflow_harness import git
from gitflow_harness.learning.lint import check_pills, failing
from gitflow_harness.store.config import load_config
from tests.helpers import ROOT


def test_the_projects_own_pills_pass_gfh_pills_check() -> None:
    repo = git.discover(ROOT)
    catalog, problems = check_pills(repo, load_config(ROOT).paths.pills, today=dt.date.today())
    assert [str(p) for p in failing(problems)] == []
    assert len(catalog.pills) >= 3
    assert all(p.citations for p in catalog.pills)
