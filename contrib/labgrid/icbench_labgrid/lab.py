# SPDX-License-Identifier: MIT OR Apache-2.0
"""One plan across the targets of a labgrid environment: for each board,
bring up a shell (its strategy, or power on + the shell driver), deploy the
icbench build for its architecture, run the plan with --json-stream (each
finished cell shown on the host as it arrives), bring the board's database
back and merge it into the lab's store with `icbench merge --board NAME`.

Everything on the board goes through labgrid's own drivers: the
CommandProtocol driver (ShellDriver on a console, SSHDriver) for commands,
the FileTransferProtocol driver for files (ShellDriver: XMODEM over the
console; SSHDriver: scp), the PowerProtocol driver (QEMUDriver, a PDU …) to
start the board. A board that fails fails its own part, with the stage and
the reason; whatever runs it finished are still merged, and the other
boards go on.
"""
import hashlib
import io
import json
import os
import shlex
import subprocess
import tarfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from .builds import BuildError, Builds, sha256

WORKDIR = "/tmp/icbench-lab"
# The board waits this long for a new cell line before answering a poll
# (the host never sleeps: each poll returns as soon as a line or the end
# is there).
POLL_WAIT_S = 10


class BoardError(Exception):
    """A board's part failed at `stage`; the message says why and what to do."""

    def __init__(self, stage, message):
        super().__init__(message)
        self.stage = stage


@dataclass
class BoardResult:
    board: str
    ok: bool = False
    stage: str = ""          # where it failed ("" when it did not)
    reason: str = ""
    arch: str = ""
    deployed: str = ""       # how the build got there
    cells: int = 0           # cell lines received
    cells_ok: int = 0
    run_status: str = ""     # the stream's end event
    merged_as: list = field(default_factory=list)
    already_here: int = 0
    fetched_db: str = ""
    bundle: str = ""         # the board's runs as one bundle (issue #31 item 5)
    seconds: float = 0.0


def one_line(exc):
    text = str(exc).strip().splitlines()
    text = text[0] if text else ""
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


def _driver(target, *names):
    """The first of these drivers/protocols the target has (activated)."""
    last = None
    for name in names:
        try:
            return target.get_driver(name)
        except Exception as e:  # NoDriverFoundError, or activation failing
            if type(e).__name__ != "NoDriverFoundError":
                raise
            last = e
    raise last


def _has(target, name):
    try:
        target.get_driver(name, activate=False)
        return True
    except Exception:
        return False


def cell_line(ev):
    """A finished cell from the JSON stream, as one progress line."""
    size = ev.get("size_bytes")
    what = " ".join(str(x) for x in (ev.get("link"), ev.get("pattern"),
                                      f"{size} B" if size is not None else None) if x)
    pos = f"cell {ev.get('index', 0) + 1}/{ev.get('of', '?')}"
    if ev.get("status") != "ok":
        return f"{pos} {what}: {ev.get('status')} {ev.get('reason', '')}".rstrip()
    rtt = (ev.get("rtt_ns") or {}).get("p50")
    if rtt is not None:
        return f"{pos} {what}: p50 {rtt / 1000:.1f} µs"
    rate = ev.get("bytes_per_s")
    if rate is not None:
        return f"{pos} {what}: {rate / 1e6:.1f} MB/s"
    return f"{pos} {what}: ok"


class BoardRun:
    """One board's part of a lab run."""

    def __init__(self, target, builds, plan, store, *, icbench_host, fetch_dir,
                 run_args=(), timeout=900, log=None, power_off=True):
        self.target = target
        self.name = target.name
        self.builds = builds
        self.plan = plan
        self.store = store
        self.icbench_host = icbench_host
        self.fetch_dir = fetch_dir
        self.run_args = list(run_args)
        self.timeout = timeout
        self.log = log or (lambda board, msg: print(f"[{board}] {msg}", flush=True))
        self.power_off = power_off
        self.result = BoardResult(board=self.name)
        self.shell = None
        self.files = None

    def say(self, msg):
        self.log(self.name, msg)

    # -- stages -------------------------------------------------------------

    def refuse_unknown_arch(self):
        """An architecture declared in the environment (target option
        `icbench_arch`) without a build is refused before the board is touched."""
        config = getattr(getattr(self.target, "env", None), "config", None)
        if config is None:
            return
        try:
            arch = config.get_target_option(self.name, "icbench_arch")
        except KeyError:
            return
        if arch:
            try:
                self.builds.for_arch(arch)
            except BuildError as e:
                raise BoardError("deploy", str(e))

    def bring_up(self):
        try:
            strategy = self.target.get_strategy()
        except Exception:
            strategy = None
        try:
            if strategy is not None and hasattr(strategy, "transition"):
                self.say(f"{type(strategy).__name__}: transition to shell")
                strategy.transition("shell")
            elif _has(self.target, "PowerProtocol"):
                power = self.target.get_driver("PowerProtocol")
                self.say(f"power on ({type(power).__name__})")
                power.on()
            self.shell = _driver(self.target, "SSHDriver", "CommandProtocol")
            self.files = _driver(self.target, "SSHDriver", "FileTransferProtocol")
        except Exception as e:
            name = type(e).__name__
            if name in ("BrokenPipeError", "EOF", "ConnectionResetError") or isinstance(e, ValueError):
                why = "its console closed before a shell prompt came: the board stopped (kernel panic, QEMU exit?)"
            elif name == "TIMEOUT":
                why = f"no shell prompt in time ({one_line(e)})"
            else:
                why = f"no shell on the board ({one_line(e)})"
            raise BoardError("boot", f"{why}; check its console, power and prompt in the environment file")
        self.say(f"shell up through {type(self.shell).__name__}")

    @contextmanager
    def console_transfer(self):
        """XMODEM over a console (ShellDriver's put/get) with the board's tty
        echo off: otherwise the receiver's first 'C's, sent before sz/rz has
        put the tty in raw mode, are echoed straight back and taken for the
        sender's answer — 16 of those and the transfer aborts (seen on a
        SerialDriver console, which answers faster than QEMUDriver's)."""
        console = type(self.files).__name__ == "ShellDriver"
        if console:
            self.sh("stty -echo")
            self._unrestrict_rz()
        try:
            yield
        finally:
            if console:
                self.sh("stty echo")

    def _unrestrict_rz(self):
        """ShellDriver receives into `mktemp`'s absolute path with `rz -X`,
        which lrzsz 0.12.21-10+deb12u1 (Debian's fix of 2026-11-26 for
        CVE-2026-105840/2) refuses in its default restricted mode ("rz:
        Security Violation", then CAN): the copy failed and labgrid's `dd`
        left an empty file. lrzsz's `-U` lifts that for this one receive of a
        file the lab chose. Reaches into labgrid's cached command (26.0.1,
        pinned in pyproject.toml); busybox's `rx` is left as it is."""
        files = self.files
        if not hasattr(files, "_get_xmodem_rx_cmd") or not hasattr(files, "_xmodem_cached_rx_cmd"):
            return
        files._get_xmodem_rx_cmd("probe")
        cmd = files._xmodem_cached_rx_cmd
        for rz in ("lrz -X ", "rz -X "):
            if cmd.startswith(rz) and " -U " not in cmd:
                files._xmodem_cached_rx_cmd = rz + "-U " + cmd[len(rz):]

    def sh(self, cmd, timeout=30):
        out, _, rc = self.shell.run(cmd, timeout=timeout)
        return out, rc

    def deploy(self):
        out, rc = self.sh("uname -m")
        if rc or not out:
            raise BoardError("deploy", "`uname -m` failed on the board")
        self.result.arch = arch = out[-1].strip()
        try:
            target, source, binary = self.builds.for_arch(arch)
        except BuildError as e:
            raise BoardError("deploy", str(e))
        want = sha256(binary)
        self.sh(f"mkdir -p {WORKDIR}")
        # Already there (a board image that carries this very build, or an
        # earlier deploy): checked by its sha256, not trusted by name.
        out, rc = self.sh(f"for b in {WORKDIR}/icbench $(command -v icbench); do "
                          f"[ -x \"$b\" ] && echo \"$(sha256sum \"$b\" | cut -d' ' -f1) $b\"; done")
        for line in out if rc == 0 else []:
            parts = line.split()
            if len(parts) == 2 and parts[0] == want:
                self.remote_icbench = parts[1]
                self.result.deployed = f"{os.path.basename(source)} already at {parts[1]} (sha256 matches)"
                self.say(f"deploy: {self.result.deployed}")
                return
        dest = f"{WORKDIR}/icbench"
        size = os.path.getsize(binary)
        self.say(f"deploy: {os.path.basename(source)} ({target}, {size} bytes) → {dest} "
                 f"through {type(self.files).__name__}")
        t0 = time.monotonic()
        try:
            with self.console_transfer():
                self.files.put(binary, dest)
        except Exception as e:
            raise BoardError("deploy", f"copying icbench to the board failed ({one_line(e)})")
        out, rc = self.sh(f"chmod 755 {dest} && sha256sum {dest}")
        if rc or not out or out[-1].split()[0] != want:
            raise BoardError("deploy", f"{dest} on the board does not match {binary} after the copy")
        self.remote_icbench = dest
        self.result.deployed = f"{os.path.basename(source)} copied in {time.monotonic() - t0:.0f} s"

    def run_plan(self):
        with open(self.plan, "rb") as f:
            plan = f.read()
        self.sh(f"rm -f {WORKDIR}/board.db* {WORKDIR}/stream.jsonl {WORKDIR}/rc {WORKDIR}/err.txt")
        try:
            with self.console_transfer():
                if hasattr(self.files, "put_bytes"):
                    self.files.put_bytes(plan, f"{WORKDIR}/plan.toml")
                else:
                    self._put_file(plan, f"{WORKDIR}/plan.toml")
        except Exception as e:
            raise BoardError("run", f"copying the plan to the board failed ({one_line(e)})")
        out, rc = self.sh(f"sha256sum {WORKDIR}/plan.toml")
        if rc or not out or out[-1].split()[0] != hashlib.sha256(plan).hexdigest():
            raise BoardError("run", f"{WORKDIR}/plan.toml on the board does not match "
                                    f"{self.plan} after the copy (see the transfer's messages above)")
        args = " ".join(shlex.quote(a) for a in self.run_args)
        cmd = (f"cd {WORKDIR} && ( {self.remote_icbench} run --plan plan.toml --json-stream "
               f"--db board.db {args} >stream.jsonl 2>err.txt; echo $? >rc.tmp; mv rc.tmp rc ) "
               f"</dev/null >/dev/null 2>&1 &")
        self.say(f"icbench run --plan {os.path.basename(self.plan)} --json-stream {args}".rstrip())
        _, rc = self.sh(cmd)
        if rc:
            raise BoardError("run", "could not start icbench on the board")
        deadline = time.monotonic() + self.timeout
        seen = 0
        exit_code = None
        while exit_code is None:
            if time.monotonic() > deadline:
                self.sh("pkill -INT -f 'icbench run --plan' 2>/dev/null; true")
                raise BoardError("run", f"the plan did not finish within {self.timeout} s "
                                 "(--timeout); its finished cells are merged")
            # The board waits (bounded) for a new complete line or the end.
            poll = (f"cd {WORKDIR}; i=0; while [ ! -f rc ] && [ $(wc -l <stream.jsonl) -le {seen} ] "
                    f"&& [ $i -lt {POLL_WAIT_S * 5} ]; do sleep 0.2; i=$((i+1)); done; "
                    f"n=$(wc -l <stream.jsonl); [ $n -gt {seen} ] && sed -n \"{seen + 1},${{n}}p\" stream.jsonl; "
                    f"[ -f rc ] && echo \"@@rc $(cat rc)\"; true")
            out, _ = self.sh(poll, timeout=POLL_WAIT_S + 30)
            for line in out:
                if line.startswith("@@rc "):
                    exit_code = int(line.split()[1])
                    continue
                seen += 1
                try:
                    ev = json.loads(line)
                except ValueError:
                    self.say(f"(not JSON) {line[:120]}")
                    continue
                if ev.get("event") == "cell":
                    self.result.cells += 1
                    self.result.cells_ok += ev.get("status") == "ok"
                    self.say(cell_line(ev))
                elif ev.get("event") == "end":
                    self.result.run_status = ev.get("status", "")
                    self.say(f"run {ev.get('run')} {ev.get('status')}: {ev.get('cells')} cells")
        if exit_code != 0:
            err, _ = self.sh(f"tail -n 3 {WORKDIR}/err.txt")
            msg = " ".join(l.strip() for l in err if l.strip())[-300:]
            raise BoardError("run", f"icbench exited with {exit_code} on the board: {msg or 'no message'}")

    def _put_file(self, data, dest):
        tmp = os.path.join(self.fetch_dir, f".{self.name}.put")
        with open(tmp, "wb") as f:
            f.write(data)
        try:
            self.files.put(tmp, dest)
        finally:
            os.unlink(tmp)

    def fetch(self):
        """The board's database (and its write-ahead log, if the run left
        one) as one gzip'd tar, unpacked next to the store."""
        out, rc = self.sh(f"cd {WORKDIR} && ls board.db board.db-wal 2>/dev/null")
        files = [f for f in out if f.startswith("board.db")] if rc == 0 or out else []
        if "board.db" not in files:
            raise BoardError("fetch", "the board has no database (icbench stored nothing)")
        _, rc = self.sh(f"cd {WORKDIR} && tar czf board.tgz {' '.join(files)}", timeout=120)
        if rc:
            raise BoardError("fetch", "could not pack the board's database")
        try:
            if hasattr(self.files, "get_bytes"):
                with self.console_transfer():
                    data = self.files.get_bytes(f"{WORKDIR}/board.tgz")
            else:
                tmp = os.path.join(self.fetch_dir, f".{self.name}.tgz")
                self.files.get(f"{WORKDIR}/board.tgz", tmp)
                with open(tmp, "rb") as f:
                    data = f.read()
                os.unlink(tmp)
        except Exception as e:
            raise BoardError("fetch", f"bringing the database back failed ({one_line(e)})")
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        dest = os.path.join(self.fetch_dir, f"{self.name}-{stamp}")
        os.makedirs(dest, exist_ok=True)
        try:
            with tarfile.open(fileobj=io.BytesIO(data)) as tf:
                for m in tf.getmembers():
                    if m.isfile() and os.path.basename(m.name) in ("board.db", "board.db-wal"):
                        with tf.extractfile(m) as src, \
                                open(os.path.join(dest, os.path.basename(m.name)), "wb") as dst:
                            dst.write(src.read())
        except (tarfile.TarError, EOFError, OSError) as e:
            raise BoardError("fetch", f"the database came back damaged ({one_line(e)})")
        self.result.fetched_db = os.path.join(dest, "board.db")
        self.say(f"fetched {len(data)} bytes → {self.result.fetched_db}")

    def merge(self):
        r = merge(self.icbench_host, self.result.fetched_db, self.name, self.store)
        self.result.merged_as = r["merged_as"]
        self.result.already_here = r["already_here"]
        self.say(f"merged into {self.store} as run(s) {', '.join(map(str, r['merged_as'])) or '-'}"
                 f" ({r['already_here']} already there)")
        if r["merged_as"]:
            # One bundle per board: its runs whole, to share or compare.
            out = os.path.join(os.path.dirname(os.path.abspath(self.store)),
                               f"{self.name}.icbench.json")
            self.result.bundle = bundle(self.icbench_host, self.store, r["merged_as"], out)
            self.say(f"bundled → {self.result.bundle}")

    def shut_down(self):
        if not self.power_off:
            return
        if _has(self.target, "PowerProtocol"):
            power = self.target.get_driver("PowerProtocol", activate=False)
            try:
                power.off()
            except (ValueError, OSError):
                # QEMUDriver: QEMU already exited (a panic with -no-reboot), so
                # its monitor is closed; mark it off, or labgrid's exit-time
                # cleanup tries the same `quit` again and prints a traceback.
                if type(power).__name__ == "QEMUDriver":
                    power.status = 0
            except Exception:
                pass
        try:
            self.target.deactivate_all_drivers()
        except Exception:
            pass

    # -- all of it ------------------------------------------------------------

    def __call__(self):
        t0 = time.monotonic()
        res = self.result
        try:
            self.refuse_unknown_arch()
            self.bring_up()
            self.deploy()
            failure = None
            try:
                self.run_plan()
            except BoardError as e:
                failure = e
            # What the board finished is merged even when the run failed.
            try:
                self.fetch()
                self.merge()
            except BoardError as e:
                if failure is None:
                    failure = e
                else:
                    self.say(f"{e.stage}: {e}")
            if failure is not None:
                raise failure
            res.ok = True
        except BoardError as e:
            res.stage, res.reason = e.stage, str(e)
            self.say(f"FAILED at {e.stage}: {e}")
        except Exception as e:  # a driver's own error: still this board's alone
            res.stage, res.reason = "board", one_line(e)
            self.say(f"FAILED: {res.reason}")
        finally:
            self.shut_down()
            res.seconds = time.monotonic() - t0
        return res


def merge(icbench, db, board, store):
    """`icbench merge DB --board BOARD --db STORE`; the entry of its --json."""
    p = subprocess.run([icbench, "merge", db, "--board", board, "--db", store, "--json"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        msg = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise BoardError("merge", msg)
    entries = json.loads(p.stdout)["merged"]
    return {"merged_as": [i for e in entries for i in e["merged_as"]],
            "already_here": sum(e["already_here"] for e in entries)}


def bundle(icbench, store, runs, out):
    """`icbench bundle RUN… -o OUT --db STORE`; returns OUT."""
    p = subprocess.run([icbench, "bundle", *map(str, runs), "-o", out, "--db", store],
                       capture_output=True, text=True)
    if p.returncode != 0:
        msg = (p.stderr.strip().splitlines() or ["no message"])[-1]
        raise BoardError("bundle", msg)
    return out


def place_of(env, name):
    """The labgrid place a target's RemotePlace resource names, or None."""
    res = (env.config.get_targets().get(name) or {}).get("resources") or {}
    entries = res if isinstance(res, list) else [res]
    for entry in entries:
        for cls, args in (entry or {}).items():
            if cls == "RemotePlace":
                return (args or {}).get("name", name)
    return None


def labgrid_client(env, *args):
    """labgrid's own client (`labgrid-client -x COORDINATOR …`); (ok, one line)."""
    import shutil
    import sys
    exe = shutil.which("labgrid-client") or os.path.join(os.path.dirname(sys.executable),
                                                         "labgrid-client")
    addr = env.config.get_option("coordinator_address",
                                 os.environ.get("LG_COORDINATOR", "127.0.0.1:20408"))
    p = subprocess.run([exe, "-x", addr, *args], capture_output=True, text=True, timeout=60)
    out = (p.stdout + p.stderr).strip().splitlines()
    return p.returncode == 0, (out[-1] if out else f"exit {p.returncode}")


def run_lab(env, plan, store, builds, *, targets=None, icbench_host=None, fetch_dir=None,
            run_args=(), timeout=900, log=None, acquire=False):
    """Runs the plan on every target (or the named ones) of a labgrid
    Environment, one after the other; returns a BoardResult per target.
    acquire: a target on a RemotePlace has its place acquired through the
    coordinator first (`labgrid-client acquire`) and released after, however
    its part ended."""
    if not os.path.isfile(plan):
        raise FileNotFoundError(f"{plan}: no such plan file")
    names = list(targets or env.config.get_targets().keys())
    if not names:
        raise ValueError("the environment file declares no targets")
    icbench_host = icbench_host or builds.host_binary()
    if not icbench_host:
        raise BuildError("no icbench this machine can run for merging: pass --icbench PATH")
    fetch_dir = fetch_dir or f"{store}.boards"
    os.makedirs(fetch_dir, exist_ok=True)
    results = []
    say = log or (lambda board, msg: print(f"[{board}] {msg}", flush=True))
    # Every place is acquired before the first target is made: labgrid's
    # RemotePlace session reads the places once, so a place acquired after
    # it started would still look free to it ("place … is not acquired").
    places, refused = {}, {}
    for name in names:
        place = place_of(env, name) if acquire else None
        if place:
            ok, msg = labgrid_client(env, "-p", place, "acquire")
            if ok:
                places[name] = place
                say(name, f"place {place} acquired through the coordinator")
            else:
                refused[name] = f"place {place}: {msg}"
                say(name, f"FAILED at acquire: place {place}: {msg}")
    for name in names:
        if name in refused:
            results.append(BoardResult(board=name, stage="acquire", reason=refused[name]))
            continue
        place = places.get(name)
        try:
            try:
                target = env.get_target(name)
                if target is None:
                    raise KeyError(f"no target '{name}' in the environment")
            except Exception as e:
                results.append(BoardResult(board=name, stage="config", reason=one_line(e)))
                say(name, f"FAILED at config: {one_line(e)}")
                continue
            results.append(BoardRun(target, builds, plan, store, icbench_host=icbench_host,
                                    fetch_dir=fetch_dir, run_args=run_args, timeout=timeout,
                                    log=log)())
        finally:
            if place:
                ok, msg = labgrid_client(env, "-p", place, "release")
                say(name, f"place {place} released" if ok else f"releasing place {place} failed: {msg}")
    return results


def summary(results):
    lines = ["board            result   cells  seconds  note"]
    for r in results:
        if r.ok:
            note = f"merged as run {', '.join(map(str, r.merged_as))}" if r.merged_as \
                else f"already in the store ({r.already_here})"
        else:
            note = f"{r.stage}: {r.reason}"
            if r.merged_as:
                note += f" (its finished cells merged as run {', '.join(map(str, r.merged_as))})"
        lines.append(f"{r.board:<16} {'ok' if r.ok else 'FAILED':<8} {r.cells_ok:>2}/{r.cells:<3} "
                     f"{r.seconds:>7.0f}  {note}")
    return "\n".join(lines)
