# SPDX-License-Identifier: MIT OR Apache-2.0
"""IcbenchStrategy and the pytest fixture `icbench_lab` (the plugin this
package installs), on one QEMU board: the strategy brings it to a shell,
the fixture runs the plan and merges it."""
import json
import os
import subprocess

import pytest
from labgrid import Environment

from test_qemu_lab import BOARD, ENV, PLAN, CELLS
from conftest import QEMU


@pytest.fixture
def target(tmp_path, kernel, image, accel):
    qaccel, cpu = ("-enable-kvm", "host") if accel == "kvm" else ("-accel tcg", "max")
    board = BOARD.format(name="board-s", smp=2, memory="256M", initrd=image, accel=qaccel,
                         cpu=cpu, extra="", login_timeout=120)
    board += "      IcbenchStrategy: {}\n"
    path = tmp_path / "strategy.yaml"
    path.write_text("imports:\n  - icbench_labgrid.strategy\n"
                    + ENV.format(targets=board, qemu=QEMU, kernel=kernel))
    env = Environment(str(path))
    t = env.get_target("board-s")
    yield t
    strategy = t.get_driver("IcbenchStrategy", activate=False)
    try:
        strategy.transition("off")
    finally:
        t.cleanup()


def test_the_strategy_and_the_fixture_run_and_merge(target, icbench_lab, icbench_store, builds):
    strategy = target.get_driver("IcbenchStrategy")
    strategy.transition("shell")
    assert strategy.status.name == "shell"
    lines = []
    result = icbench_lab(target, PLAN, run_args=["--replicates", "1", "--no-floor"], timeout=300,
                         log=lambda board, msg: lines.append(f"[{board}] {msg}"))
    assert result.ok, f"{result.stage}: {result.reason}\n" + "\n".join(lines)
    assert result.cells_ok == CELLS and len(result.merged_as) == 1, result
    # The board's runs as one bundle beside the store (issue #31 item 5).
    assert result.bundle and os.path.exists(result.bundle), result
    with open(result.bundle) as f:
        assert len(json.load(f)["runs"]) == 1
    p = subprocess.run([builds.host_binary(), "runs", "--json", "--db", icbench_store],
                       capture_output=True, text=True, check=True)
    runs = json.loads(p.stdout)["runs"]
    assert [r["origin"].split(" · ")[0] for r in runs] == ["board board-s"], runs
