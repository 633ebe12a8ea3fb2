# SPDX-License-Identifier: MIT OR Apache-2.0
"""Without a board: which build a board gets, the progress lines, the
summary, and a board whose architecture has no build refused before its
power is touched."""
import hashlib
import io
import os
import tarfile

import pytest

from icbench_labgrid.builds import BuildError, Builds
from icbench_labgrid.lab import BoardError, BoardResult, BoardRun, cell_line, summary


def tarball(dirpath, target, content=b"\x7fELF fake"):
    name = f"icbench-0.1.0-{target}"
    path = os.path.join(dirpath, f"{name}.tar.gz")
    with tarfile.open(path, "w:gz") as tf:
        info = tarfile.TarInfo(f"{name}/bin/icbench")
        info.size = len(content)
        tf.addfile(info, io.BytesIO(content))
    return path


def test_dist_maps_every_uname_to_its_tarball(tmp_path):
    for t in ("x86_64-unknown-linux-musl", "aarch64-unknown-linux-gnu",
              "armv7-unknown-linux-gnueabihf"):
        tarball(tmp_path, t, t.encode())
    b = Builds(cache_dir=str(tmp_path / "c"))
    b.add_dist(str(tmp_path))
    for arch, target in (("x86_64", "x86_64-unknown-linux-musl"),
                         ("aarch64", "aarch64-unknown-linux-gnu"),
                         ("armv7l", "armv7-unknown-linux-gnueabihf")):
        got, _, binary = b.for_arch(arch)
        assert got == target
        assert open(binary, "rb").read() == target.encode()
        assert os.access(binary, os.X_OK)


def test_no_build_for_an_architecture_says_what_to_run(tmp_path):
    tarball(tmp_path, "x86_64-unknown-linux-musl")
    b = Builds(cache_dir=str(tmp_path / "c"))
    b.add_dist(str(tmp_path))
    with pytest.raises(BuildError, match=r"no icbench build for aarch64 .*scripts/release aarch64-unknown-linux-gnu"):
        b.for_arch("aarch64")
    with pytest.raises(BuildError, match="board architecture 'riscv64' has no icbench build"):
        b.for_arch("riscv64")


def test_a_damaged_tarball_is_refused_in_one_line(tmp_path):
    p = tmp_path / "icbench-0.1.0-x86_64-unknown-linux-musl.tar.gz"
    p.write_bytes(b"\x1f\x8b truncated")
    with pytest.raises(BuildError, match="cannot be read") as e:
        Builds(cache_dir=str(tmp_path / "c")).add_dist(str(tmp_path))
    assert "\n" not in str(e.value)


def test_empty_dist_is_refused(tmp_path):
    with pytest.raises(BuildError, match="run scripts/release"):
        with Builds() as b:
            b.add_dist(str(tmp_path))


def test_cell_lines():
    assert cell_line({"index": 0, "of": 4, "link": "pipe", "pattern": "pingpong",
                      "size_bytes": 64, "status": "ok", "rtt_ns": {"p50": 61152.0}}) \
        == "cell 1/4 pipe pingpong 64 B: p50 61.2 µs"
    assert cell_line({"index": 3, "of": 4, "link": "shm", "pattern": "stream",
                      "size_bytes": 4096, "status": "ok", "bytes_per_s": 2.5e8}) \
        == "cell 4/4 shm stream 4096 B: 250.0 MB/s"
    assert cell_line({"index": 1, "of": 2, "link": "mq", "pattern": "pingpong",
                      "size_bytes": 64, "status": "failed", "reason": "timeout"}) \
        == "cell 2/2 mq pingpong 64 B: failed timeout"


def test_summary_names_each_failure_with_its_stage():
    s = summary([BoardResult("mp1", ok=True, cells=4, cells_ok=4, merged_as=[3]),
                 BoardResult("imx8", stage="boot", reason="no shell on the board (TIMEOUT)")])
    lines = s.splitlines()
    assert lines[1].split()[:2] == ["mp1", "ok"] and "merged as run 3" in lines[1]
    assert lines[2].split()[:2] == ["imx8", "FAILED"] and "boot: no shell" in lines[2]


class FakeConfig:
    def __init__(self, opts):
        self.opts = opts

    def get_target_option(self, target, name, default=None):
        if name not in self.opts:
            raise KeyError(name)
        return self.opts[name]


class FakeTarget:
    """Records what the board run asked of it: nothing may be touched."""
    name = "rpi"

    def __init__(self, opts):
        self.env = type("E", (), {"config": FakeConfig(opts)})()
        self.touched = []

    def get_strategy(self):
        self.touched.append("strategy")
        raise AssertionError("touched")

    def get_driver(self, *a, **k):
        self.touched.append(a[0])
        raise AssertionError("touched")

    def deactivate_all_drivers(self):
        pass


def test_declared_architecture_without_build_is_refused_before_power(tmp_path):
    tarball(tmp_path, "x86_64-unknown-linux-musl")
    b = Builds(cache_dir=str(tmp_path / "c"))
    b.add_dist(str(tmp_path))
    t = FakeTarget({"icbench_arch": "aarch64"})
    r = BoardRun(t, b, "plan.toml", str(tmp_path / "lab.db"), icbench_host="icbench",
                 fetch_dir=str(tmp_path), log=lambda *a: None, power_off=False)()
    assert not r.ok and r.stage == "deploy"
    assert "no icbench build for aarch64" in r.reason
    assert t.touched == []


class ShellDriver:
    """labgrid's ShellDriver as far as a plan's copy goes, with the board's
    rz of lrzsz 0.12.21-10+deb12u1: an absolute path is refused unless the
    command says -U, and labgrid's `dd` then leaves an empty file."""

    def __init__(self, rx="rz -X -y -c -b '{filename}' 2>/dev/null"):
        self._xmodem_cached_rx_cmd = ""
        self.rx = rx
        self.board = {}

    def _get_xmodem_rx_cmd(self, filename):
        if not self._xmodem_cached_rx_cmd:
            self._xmodem_cached_rx_cmd = self.rx
        return self._xmodem_cached_rx_cmd.format(filename=filename)

    def put_bytes(self, buf, remotefile):
        cmd = self._get_xmodem_rx_cmd("/tmp/tmp.x")
        refused = cmd.startswith(("rz ", "lrz ")) and " -U " not in cmd
        self.board[remotefile] = b"" if refused else buf


class FakeShell:
    def __init__(self, files):
        self.files = files
        self.cmds = []

    def run(self, cmd, timeout=30):
        self.cmds.append(cmd)
        if cmd.startswith("sha256sum "):
            path = cmd.split()[1]
            return [f"{hashlib.sha256(self.files.board.get(path, b'')).hexdigest()}  {path}"], "", 0
        if cmd.startswith(("rm -f", "stty")):
            return [], "", 0
        return [], "", 1


def plan_run(tmp_path, files):
    plan = tmp_path / "plan.toml"
    plan.write_text('[factors]\nlink = ["pipe"]\n')
    r = BoardRun(FakeTarget({}), Builds(cache_dir=str(tmp_path / "c")), str(plan), str(tmp_path / "lab.db"),
                 icbench_host="icbench", fetch_dir=str(tmp_path), log=lambda *a: None)
    r.files, r.shell, r.remote_icbench = files, FakeShell(files), "/usr/local/bin/icbench"
    return r, plan


def test_the_plan_reaches_a_board_whose_rz_refuses_absolute_paths(tmp_path):
    files = ShellDriver()
    r, plan = plan_run(tmp_path, files)
    with pytest.raises(BoardError, match="could not start icbench"):
        r.run_plan()  # the fake shell refuses the start: the copy came before it
    assert files._xmodem_cached_rx_cmd.startswith("rz -X -U -y")
    assert list(files.board.values()) == [plan.read_bytes()]


def test_a_plan_the_board_did_not_get_is_said_before_icbench_runs(tmp_path):
    files = ShellDriver()
    files.put_bytes = lambda buf, remotefile: files.board.__setitem__(remotefile, buf[:5])
    r, _ = plan_run(tmp_path, files)
    with pytest.raises(BoardError, match="plan.toml on the board does not match .*after the copy"):
        r.run_plan()
    assert not any("run --plan" in c for c in r.shell.cmds)


def test_busybox_rx_is_left_as_it_is(tmp_path):
    files = ShellDriver(rx="rx '{filename}' 2>/dev/null")
    r, plan = plan_run(tmp_path, files)
    with pytest.raises(BoardError, match="could not start icbench"):
        r.run_plan()
    assert files._xmodem_cached_rx_cmd == "rx '{filename}' 2>/dev/null"


def test_unpacked_builds_go_with_the_lab_run_unless_a_cache_is_given(tmp_path):
    tarball(tmp_path, "x86_64-unknown-linux-musl")
    with Builds() as b:
        b.add_dist(str(tmp_path))
        _, _, binary = b.for_arch("x86_64")
        assert os.path.isfile(binary)
    assert not os.path.exists(binary)
    kept = Builds(cache_dir=str(tmp_path / "c"))
    kept.add_dist(str(tmp_path))
    _, _, binary = kept.for_arch("x86_64")
    kept.close()
    assert os.path.isfile(binary)
