# SPDX-License-Identifier: MIT OR Apache-2.0
"""pytest fixtures for labgrid's pytest plugin (`pytest --lg-env lab.yaml`):

    def test_ipc(target, icbench_lab):
        result = icbench_lab(target, "plans/x.toml")
        assert result.ok, result.reason

`icbench_builds` reads `--icbench-dist DIR` (scripts/release's tarballs,
default dist/) and `--icbench-build ARCH=PATH`; `icbench_store` is
`--icbench-store` (default: a file in the test's tmp_path).
"""
import os

import pytest

from .builds import Builds
from .lab import BoardRun


def pytest_addoption(parser):
    g = parser.getgroup("icbench-labgrid")
    g.addoption("--icbench-dist", default=None, help="directory of scripts/release tarballs")
    g.addoption("--icbench-build", action="append", default=[], metavar="ARCH=PATH",
                help="an icbench tarball or binary for boards whose uname -m is ARCH")
    g.addoption("--icbench-store", default=None, help="the lab's icbench database")


@pytest.fixture(scope="session")
def icbench_builds(pytestconfig, tmp_path_factory):
    builds = Builds(cache_dir=str(tmp_path_factory.mktemp("icbench-builds")))
    dist = pytestconfig.getoption("--icbench-dist") or ("dist" if os.path.isdir("dist") else None)
    if dist:
        builds.add_dist(dist)
    for spec in pytestconfig.getoption("--icbench-build"):
        arch, _, path = spec.partition("=")
        builds.add(arch, path)
    return builds


@pytest.fixture
def icbench_store(pytestconfig, tmp_path):
    return pytestconfig.getoption("--icbench-store") or str(tmp_path / "lab.db")


@pytest.fixture
def icbench_lab(icbench_builds, icbench_store, tmp_path):
    """Runs a plan on a labgrid target and merges its database; returns the BoardResult."""
    def run(target, plan, **kwargs):
        kwargs.setdefault("icbench_host", icbench_builds.host_binary())
        kwargs.setdefault("fetch_dir", str(tmp_path / "boards"))
        os.makedirs(kwargs["fetch_dir"], exist_ok=True)
        return BoardRun(target, icbench_builds, plan, icbench_store, **kwargs)()
    return run
