# SPDX-License-Identifier: MIT OR Apache-2.0
"""Two QEMU boards (labgrid QEMUDriver + ShellDriver on the serial console)
and one that never boots: one plan through `python -m icbench_labgrid`,
every board's database merged into one store."""
import json
import os
import subprocess
import sys
import time

import pytest

from conftest import QEMU

PLAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny.toml")
CELLS = 4  # tiny.toml: 2 links x 2 sizes, 1 repetition

ENV = """\
targets:
{targets}
tools:
  qemu: {qemu}
images:
  kernel: {kernel}
"""

BOARD = """\
  {name}:
    drivers:
      QEMUDriver:
        qemu_bin: qemu
        machine: pc
        cpu: {cpu}
        memory: {memory}
        kernel: kernel
        extra_args: "{accel} -smp {smp} -initrd {initrd} -no-reboot"
        boot_args: "console=ttyS0 loglevel=1 panic=-1 icb_board={name}{extra}"
      ShellDriver:
        prompt: 'icb-lab# '
        login_prompt: 'login: '
        username: root
        login_timeout: {login_timeout}
"""


def env_file(path, kernel, initrd, accel):
    qaccel, cpu = ("-enable-kvm", "host") if accel == "kvm" else ("-accel tcg", "max")
    boards = [
        BOARD.format(name="board-a", smp=2, memory="256M", initrd=initrd, accel=qaccel, cpu=cpu,
                     extra="", login_timeout=120),
        BOARD.format(name="board-b", smp=3, memory="192M", initrd=initrd, accel=qaccel, cpu=cpu,
                     extra="", login_timeout=120),
        # Its kernel finds no init and panics: QEMU exits (-no-reboot), no shell ever comes.
        BOARD.format(name="board-dead", smp=1, memory="128M", initrd=initrd, accel=qaccel,
                     cpu=cpu, extra=" rdinit=/no-such-init", login_timeout=30),
    ]
    with open(path, "w") as f:
        f.write(ENV.format(targets="".join(boards), qemu=QEMU, kernel=kernel))
    return path


@pytest.fixture(scope="module")
def lab(tmp_path_factory, kernel, image, accel, dist, builds):
    d = tmp_path_factory.mktemp("lab")
    env = env_file(str(d / "lab.yaml"), kernel, image, accel)
    store = str(d / "lab.db")
    cmd = [sys.executable, "-m", "icbench_labgrid", "--env", env, "--plan", PLAN,
           "--store", store, "--dist", dist, "--timeout", "300",
           "--", "--replicates", "1", "--no-floor"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    took = time.monotonic() - t0
    print(p.stdout[-6000:])
    print(p.stderr[-3000:], file=sys.stderr)
    print(f"lab run: {took:.0f} s under {accel}")
    return {"proc": p, "store": store, "dir": str(d), "icbench": builds.host_binary(),
            "accel": accel}


def icbench(lab, *args):
    p = subprocess.run([lab["icbench"], *args, "--db", lab["store"]], capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, f"icbench {' '.join(args)}: {p.stderr.strip()}"
    return p.stdout


def runs(lab):
    return json.loads(icbench(lab, "runs", "--json"))["runs"]


def test_the_dead_board_fails_alone_and_the_exit_says_so(lab):
    p = lab["proc"]
    assert p.returncode == 1, p.stdout + p.stderr
    summary = p.stdout[p.stdout.index("board            result"):]
    rows = {l.split()[0]: l for l in summary.splitlines()[1:]}
    assert rows["board-a"].split()[1] == "ok", summary
    assert rows["board-b"].split()[1] == "ok", summary
    assert rows["board-dead"].split()[1] == "FAILED", summary
    assert "boot: its console closed before a shell prompt came" in rows["board-dead"], summary


def test_each_board_one_run_with_its_name_and_every_cell(lab):
    rs = runs(lab)
    assert len(rs) == 2, rs
    boards = sorted(r["origin"].split(" · ")[0] for r in rs)
    assert boards == ["board board-a", "board board-b"], rs
    for r in rs:
        assert r["status"] == "finished", r
        assert r["cells_ok"] == CELLS and r["cells_failed"] == 0, r


def test_progress_arrives_cell_by_cell(lab):
    out = lab["proc"].stdout
    for board in ("board-a", "board-b"):
        for i in range(1, CELLS + 1):
            assert f"[{board}] cell {i}/{CELLS} " in out, out
        assert f"[{board}] deploy: icbench-" in out and "sha256 matches" in out, out


def test_merging_again_duplicates_nothing(lab):
    fetched = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(lab["store"] + ".boards")
                     for f in fs if f == "board.db")
    assert len(fetched) == 2, fetched
    before = len(runs(lab))
    for db in fetched:
        board = os.path.basename(os.path.dirname(db)).rsplit("-", 1)[0]
        out = json.loads(icbench(lab, "merge", db, "--board", board, "--json"))
        assert out["merged"][0]["merged_as"] == [] and out["merged"][0]["already_here"] == 1, out
    assert len(runs(lab)) == before


def test_compare_effects_and_report_across_the_boards(lab):
    ids = [str(r["id"]) for r in runs(lab)]
    cmp = icbench(lab, "compare", *ids)
    # The guests call themselves guest-board-a …: the board names come from the merge.
    assert "· board board-a · measured · guest-board-a" in cmp, cmp
    assert "· board board-b · measured · guest-board-b" in cmp, cmp
    eff = icbench(lab, "effects", *ids)
    assert "board" in eff, eff
    html = os.path.join(lab["dir"], "lab.html")
    icbench(lab, "report", *ids, "-o", html)
    page = open(html, encoding="utf-8").read()
    boards = page[page.index("<h2>Boards</h2>"):]
    assert "per board (board-a, board-b)" in boards, boards[:2000]
    for b in ("board-a", "board-b"):
        assert f'<td class="l">{b}</td>' in boards, boards[:2000]
