# SPDX-License-Identifier: MIT OR Apache-2.0
"""The distributed path: a labgrid coordinator and an exporter on
localhost, two QEMU boards whose serial consoles the exporter offers as
NetworkSerialPort resources in places board-a and board-b, and a third
place whose board is switched off (nothing listens on its port).
`python -m icbench_labgrid --acquire` acquires each place through the
coordinator, runs the plan over labgrid's SerialDriver + ShellDriver,
merges, and releases every place — the dead board's too."""
import json
import os
import socket
import subprocess
import sys
import time

import pytest

from conftest import QEMU

PLAN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "tiny.toml")
BIN = os.path.dirname(sys.executable)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, cond, bound_s):
    """Polls cond() until it is true; fails with `what` after bound_s."""
    deadline = time.monotonic() + bound_s
    while not cond():
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {bound_s} s")
        time.sleep(0.1)


def listening(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def client(coord, *args):
    return subprocess.run([os.path.join(BIN, "labgrid-client"), "-x", coord, *args],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def lab(tmp_path_factory, kernel, image, accel, dist, builds):
    d = tmp_path_factory.mktemp("coord")
    procs = []
    logs = []

    def start(name, cmd):
        log = open(d / f"{name}.log", "w")
        logs.append(log)
        # cwd: the coordinator keeps its places in ./places.yaml
        procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                      stderr=subprocess.STDOUT, cwd=d))
        return procs[-1]

    try:
        coord_port = free_port()
        coord = f"127.0.0.1:{coord_port}"
        ports = {"board-a": free_port(), "board-b": free_port(), "board-off": free_port()}
        qaccel = ["-enable-kvm", "-cpu", "host"] if accel == "kvm" else ["-accel", "tcg", "-cpu", "max"]
        # The lab's boards, switched on: board-a and board-b (board-off stays off).
        for name, smp in (("board-a", 2), ("board-b", 3)):
            start(name, [QEMU, *qaccel, "-machine", "pc", "-smp", str(smp), "-m", "256M",
                         "-nographic", "-monitor", "none", "-no-reboot",
                         "-kernel", kernel, "-initrd", image,
                         "-append", f"console=ttyS0 loglevel=1 panic=-1 icb_board={name}",
                         "-serial", f"tcp:127.0.0.1:{ports[name]},server=on,wait=off"])
        start("coordinator", [os.path.join(BIN, "labgrid-coordinator"), "-l", coord])
        wait_for("labgrid-coordinator listening", lambda: listening(coord_port), 30)
        with open(d / "exporter.yaml", "w") as f:
            for name, port in ports.items():
                f.write(f"{name}:\n  NetworkSerialPort:\n    host: 127.0.0.1\n"
                        f"    port: {port}\n    protocol: raw\n")
        start("exporter", [os.path.join(BIN, "labgrid-exporter"), "-c", coord, "-n", "lab",
                           "--hostname", "127.0.0.1", str(d / "exporter.yaml")])
        wait_for("the exporter's three resources at the coordinator",
                 lambda: client(coord, "resources").stdout.count("NetworkSerialPort") == 3, 60)
        for name in ports:
            for args in (("create",), ("add-match", f"lab/{name}/*")):
                p = client(coord, "-p", name, *args)
                assert p.returncode == 0, p.stderr
        with open(d / "lab.yaml", "w") as f:
            f.write("targets:\n")
            for name in ports:
                f.write(f"  {name}:\n    resources:\n      RemotePlace:\n        name: {name}\n"
                        "    drivers:\n      SerialDriver: {}\n      ShellDriver:\n"
                        "        prompt: 'icb-lab# '\n        login_prompt: 'login: '\n"
                        "        username: root\n        login_timeout: 120\n")
            f.write(f"options:\n  coordinator_address: {coord}\n")
        store = str(d / "lab.db")
        t0 = time.monotonic()
        p = subprocess.run([sys.executable, "-m", "icbench_labgrid", "--acquire",
                            "--env", str(d / "lab.yaml"), "--plan", PLAN, "--store", store,
                            "--dist", dist, "--timeout", "300",
                            "--", "--replicates", "1", "--no-floor"],
                           capture_output=True, text=True, timeout=900)
        print(p.stdout[-6000:])
        print(p.stderr[-3000:], file=sys.stderr)
        print(f"coordinator lab run: {time.monotonic() - t0:.0f} s under {accel}")
        places = client(coord, "places", "--acquired")
        assert places.returncode == 0, places.stderr
        yield {"proc": p, "store": store, "icbench": builds.host_binary(), "coord": coord,
               "places": places.stdout}
    finally:
        for proc in reversed(procs):
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs:
            log.close()


def test_boards_of_the_coordinator_merge_and_the_dead_one_fails_alone(lab):
    p = lab["proc"]
    assert p.returncode == 1, p.stdout + p.stderr
    out = p.stdout
    for name in ("board-a", "board-b", "board-off"):
        assert f"[{name}] place {name} acquired through the coordinator" in out, out
        assert f"[{name}] place {name} released" in out, out
    rows = {l.split()[0]: l for l in out[out.index("board            result"):].splitlines()[1:]}
    assert rows["board-a"].split()[1] == "ok" and rows["board-b"].split()[1] == "ok", out
    assert rows["board-off"].split()[1] == "FAILED" and "boot:" in rows["board-off"], out


def test_one_run_per_board_in_the_store(lab):
    p = subprocess.run([lab["icbench"], "runs", "--json", "--db", lab["store"]],
                       capture_output=True, text=True, check=True)
    runs = json.loads(p.stdout)["runs"]
    assert sorted(r["origin"].split(" · ")[0] for r in runs) == ["board board-a", "board board-b"]
    assert all(r["cells_ok"] == 4 and r["status"] == "finished" for r in runs), runs


def test_every_place_is_released(lab):
    assert lab["places"].strip() == "", f"still acquired: {lab['places']}"
