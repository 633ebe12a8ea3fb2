//! A session: one opened link with its peer running, from start to teardown.
//! A failed cell ends its session; the next cell gets a fresh link and a
//! fresh peer, so one broken cell cannot poison the rest of the run.
//!
//! The peer is one of: icbench's own peer (a re-executed process or a
//! thread, speaking the control protocol of `ctrl.rs`); a program named by
//! `--peer-cmd` (the host build of `firmware/`, `icb-peer`, on a pty's slave
//! or on its stdin/stdout); or, for a link to a device (`tty:`, `serial:`),
//! whatever answers there — nothing to start, and re-opening the device is
//! what "a fresh peer" means. For the icb protocol a session begins with the
//! handshake (`remote::icb::handshake`).

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::os::unix::thread::JoinHandleExt;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use icbench_link::{Abort, Link, LinkError, LinkSpec};

use icbench_proto::Protocol;

use crate::ctrl::Op;
use crate::remote::icb::{self, Icb};
use crate::watchdog::{Watchdog, install_wake_handler, wake_thread};
use crate::{EngineConfig, PeerLaunch, peer};

/// How long a peer gets to exit after "quit" before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

enum Peer {
    /// icbench's own peer process, or a `--peer-cmd` program (`hold`: the
    /// peer end's descriptors, kept open while the program uses them by
    /// path, so that a pty master does not see its slave closed).
    Process { child: Child, pidfd: Option<Arc<OwnedFd>>, own: bool, hold: Vec<OwnedFd> },
    Thread {
        join: JoinHandle<Result<(), LinkError>>,
        abort: Abort,
        /// The thread's id (for its counters, `disturb`).
        tid: i32,
    },
    /// Whatever answers on the device.
    Remote,
}

pub(crate) struct Session {
    pub(crate) host: Box<dyn Link>,
    pub(crate) abort: Abort,
    peer: Peer,
    /// The icb conversation, once the handshake is done.
    pub(crate) icb: Option<Icb>,
    /// The state probe taken before the session opened, for its cells.
    pub(crate) state: Option<icbench_model::StateProbe>,
}

impl Session {
    pub(crate) fn open(
        cfg: &EngineConfig,
        spec: &LinkSpec,
        fault: Option<crate::Fault>,
    ) -> Result<Session, String> {
        let abort = Abort::new();
        let (host, handoff) = icbench_link::open(spec, abort.clone()).map_err(|e| e.to_string())?;
        let peer = match (cfg.protocol, &cfg.peer_cmd) {
            (_, Some(cmd)) => spawn_command(cmd, handoff, fault)?,
            (Some(_), None) if handoff.remote => Peer::Remote,
            (Some(p), None) => {
                return Err(format!(
                    "link {spec} with --protocol {p} needs a peer that speaks it: give --peer-cmd, \
                     e.g. 'firmware/build/icb-peer --path {{path}} --protocol {p}'"
                ));
            }
            (None, None) if handoff.remote => {
                return Err(format!(
                    "link {spec} has no local peer (its peer is the firmware on the device): \
                     give --protocol icb, dimtass or raw"
                ));
            }
            (None, None) => spawn_own(cfg, handoff, Role::Serve(fault))?,
        };
        let mut s = Session { host, abort, peer, icb: None, state: None };
        match cfg.protocol {
            Some(Protocol::Icb) => {
                // Under a watchdog too, so that Ctrl-C or a write that never
                // completes cannot hold the handshake past its limit.
                let wd =
                    Watchdog::start(cfg.timeout * 2, s.abort.clone(), s.pidfd(), None, cfg.stop);
                let peer = &mut s.peer;
                let got = icb::handshake(s.host.as_mut(), cfg.timeout, &mut || peer_alive(peer));
                wd.finish();
                s.abort.clear();
                match got {
                    Ok(c) => s.icb = Some(c),
                    Err(reason) => {
                        let how = s.close(false);
                        return Err(match how {
                            Some(h) if !reason.contains(&h) => format!("{reason} ({h})"),
                            _ => reason,
                        });
                    }
                }
            }
            Some(_) => s.host.discard_input(),
            None => {}
        }
        Ok(s)
    }
}

/// Fails once the peer has exited, saying how.
fn peer_alive(peer: &mut Peer) -> Result<(), String> {
    match peer {
        Peer::Process { child, .. } => match child.try_wait() {
            Ok(Some(st)) => Err(describe_exit(Some(st), stderr_of(child).trim())
                .unwrap_or_else(|| "peer exited".into())),
            _ => Ok(()),
        },
        _ => Ok(()),
    }
}

/// Starts a `--peer-cmd` program. `{path}` in an argument becomes the
/// device the link offers its peer; without it, a one-descriptor peer end
/// becomes the program's stdin and stdout. A fault to inject is passed on as
/// `--fault F` (icb-peer's option).
fn spawn_command(
    argv: &[String],
    handoff: icbench_link::Handoff,
    fault: Option<crate::Fault>,
) -> Result<Peer, String> {
    let by_path = argv.iter().any(|a| a.contains("{path}"));
    let (exe, args) = argv.split_first().ok_or("--peer-cmd is empty")?;
    let mut cmd = Command::new(exe);
    if by_path {
        let path = handoff.peer_path.as_deref().ok_or_else(|| {
            "this link offers no device path for {path} in --peer-cmd (only pty does)".to_string()
        })?;
        cmd.args(args.iter().map(|a| a.replace("{path}", path)));
        cmd.stdin(Stdio::null()).stdout(Stdio::null());
    } else {
        cmd.args(args);
        match handoff.fds.as_slice() {
            [fd] => {
                let dup = |fd: &OwnedFd| fd.try_clone().map_err(|e| format!("dup: {e}"));
                cmd.stdin(Stdio::from(dup(fd)?)).stdout(Stdio::from(dup(fd)?));
            }
            _ => {
                cmd.stdin(Stdio::null()).stdout(Stdio::null());
            }
        }
    }
    if let Some(f) = fault {
        cmd.arg("--fault").arg(f.to_arg());
    }
    cmd.stderr(Stdio::piped());
    // SAFETY: only async-signal-safe calls (prctl, setpgid) between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            libc::setpgid(0, 0);
            Ok(())
        });
    }
    let child = cmd.spawn().map_err(|e| format!("cannot start the peer command {exe}: {e}"))?;
    let pidfd = rustix::process::pidfd_open(
        rustix::process::Pid::from_child(&child),
        rustix::process::PidfdFlags::empty(),
    )
    .ok()
    .map(Arc::new);
    // By path, the host keeps the peer end open; on stdio the child has it.
    let hold = if by_path { handoff.fds } else { Vec::new() };
    Ok(Peer::Process { child, pidfd, own: false, hold })
}

/// What icbench's own peer does once attached.
#[derive(Debug, Clone, Copy)]
enum Role {
    /// Serve the control protocol (`peer::serve`), injecting the fault.
    Serve(Option<crate::Fault>),
    /// Run the bare echo loop of messages of this size
    /// (`icbench_link::reference::serve`): the reference of `bare.rs`.
    Bare(usize),
}

/// Starts icbench's own peer: a re-executed process or a thread, pinned
/// and scheduled the same way whatever its role.
fn spawn_own(
    cfg: &EngineConfig,
    handoff: icbench_link::Handoff,
    role: Role,
) -> Result<Peer, String> {
    let peer = match &cfg.peer {
        PeerLaunch::Process { exe, args } => {
            let mut cmd = Command::new(exe);
            cmd.args(args)
                .arg("--handoff")
                .arg(&handoff.text)
                .arg("--cpu")
                .arg(cfg.peer_cpu.to_string())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
            if let Some(p) = cfg.fifo {
                cmd.arg("--fifo").arg(p.to_string());
            }
            match role {
                Role::Serve(Some(f)) => {
                    cmd.arg("--fault").arg(f.to_arg());
                }
                Role::Serve(None) => {}
                Role::Bare(size) => {
                    cmd.arg("--bare").arg(size.to_string());
                }
            }
            let fds: Vec<i32> = handoff.fds.iter().map(AsRawFd::as_raw_fd).collect();
            // The peer is born on its CPU: it pins itself again first thing,
            // but its exec and start then run there and not on the host's
            // CPU, and its first cell does not count a move to its CPU as a
            // migration (disturb.rs). Built before the fork.
            // SAFETY: cpu_set_t is plain data; CPU_SET writes inside it.
            let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
            unsafe { libc::CPU_SET(cfg.peer_cpu as usize, &mut set) };
            // SAFETY: only async-signal-safe calls (fcntl, sched_setaffinity,
            // prctl, setpgid) between fork and exec.
            unsafe {
                cmd.pre_exec(move || {
                    // A failure is the peer's own pin's to report.
                    libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
                    for &fd in &fds {
                        if libc::fcntl(fd, libc::F_SETFD, 0) != 0 {
                            return Err(std::io::Error::last_os_error());
                        }
                    }
                    // The peer must not outlive icbench, and Ctrl-C in
                    // the terminal is for icbench, which tears it down.
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    libc::setpgid(0, 0);
                    Ok(())
                });
            }
            let child =
                cmd.spawn().map_err(|e| format!("cannot start the peer {}: {e}", exe.display()))?;
            // The host's copies of the peer's descriptors must go, or the
            // host would never see the peer close them.
            drop(handoff);
            let pidfd = rustix::process::pidfd_open(
                rustix::process::Pid::from_child(&child),
                rustix::process::PidfdFlags::empty(),
            )
            .ok()
            .map(Arc::new);
            Peer::Process { child, pidfd, own: true, hold: Vec::new() }
        }
        PeerLaunch::Thread => {
            install_wake_handler();
            let text = handoff.text.clone();
            // The peer end takes the descriptors over.
            let raw: Vec<i32> = handoff.fds.into_iter().map(IntoRawFd::into_raw_fd).collect();
            let peer_abort = Abort::new();
            let (pa, cpu, fifo) = (peer_abort.clone(), cfg.peer_cpu, cfg.fifo);
            let (placed_tx, placed_rx) = std::sync::mpsc::sync_channel(1);
            let join = std::thread::Builder::new()
                .name("icbench-peer".into())
                .spawn(move || {
                    let placed = place_thread(cpu, fifo);
                    let _ = placed_tx.send(rustix::thread::gettid().as_raw_nonzero().get());
                    let attached = match (placed, role) {
                        (Err(e), _) => Err(e),
                        // The bare loop takes the descriptors over.
                        (Ok(()), Role::Bare(size)) => {
                            return icbench_link::reference::serve(&text, size, &pa);
                        }
                        (Ok(()), Role::Serve(_)) => icbench_link::attach(&text, pa.clone()),
                    };
                    let mut link = match attached {
                        Ok(l) => l,
                        Err(e) => {
                            for fd in raw {
                                // SAFETY: attach failed, so nothing owns them.
                                drop(unsafe { OwnedFd::from_raw_fd(fd) });
                            }
                            return Err(e);
                        }
                    };
                    let Role::Serve(fault) = role else { unreachable!("handled above") };
                    peer::serve(link.as_mut(), fault, &pa)
                })
                .map_err(|e| format!("cannot start the peer thread: {e}"))?;
            // Blocked until the peer has moved to its CPU: it starts on this
            // one, and under SCHED_FIFO a host end spinning here would never
            // let it run (cpu::spawn_pinned says why).
            let tid = placed_rx.recv().unwrap_or(0);
            Peer::Thread { join, abort: peer_abort, tid }
        }
    };
    Ok(peer)
}

impl Session {
    pub(crate) fn pidfd(&self) -> Option<Arc<OwnedFd>> {
        match &self.peer {
            Peer::Process { pidfd, .. } => pidfd.clone(),
            Peer::Thread { .. } | Peer::Remote => None,
        }
    }

    /// Where the peer's serving thread keeps its counters: a process
    /// peer's main thread, a thread peer's own; none for a remote peer.
    pub(crate) fn peer_task(&self) -> Option<crate::disturb::Task> {
        match &self.peer {
            Peer::Process { child, .. } => {
                let pid = child.id() as i32;
                Some(crate::disturb::Task::of(pid, pid))
            }
            Peer::Thread { tid, .. } if *tid > 0 => {
                Some(crate::disturb::Task::of(std::process::id() as i32, *tid))
            }
            Peer::Thread { .. } | Peer::Remote => None,
        }
    }

    /// Ends the session. `clean`: ask the peer to quit and give it time;
    /// otherwise stop it at once. Returns a description of how the peer
    /// ended when it did not end well (for a failure reason).
    pub(crate) fn close(mut self, clean: bool) -> Option<String> {
        let own = matches!(self.peer, Peer::Process { own: true, .. } | Peer::Thread { .. });
        let clean = clean && own;
        if clean {
            self.abort.clear();
            let _ = self.host.send(&Op::Quit.encode());
        }
        let Session { host, peer, .. } = self;
        match peer {
            Peer::Remote => None,
            Peer::Process { mut child, hold, .. } => {
                drop(hold);
                // The host end stays open until the peer is gone.
                let how = reap(&mut child, if clean { QUIT_GRACE } else { Duration::ZERO });
                drop(host);
                how
            }
            Peer::Thread { join, abort, .. } => {
                drop(host);
                stop_thread(join, &abort, "peer")
            }
        }
    }

    /// Whether the peer process has exited, and how.
    pub(crate) fn peer_exit(&mut self) -> Option<String> {
        match &mut self.peer {
            Peer::Process { child, .. } => match child.try_wait() {
                Ok(Some(st)) => describe_exit(Some(st), "").or(Some("peer exited".into())),
                _ => None,
            },
            Peer::Thread { join, .. } => {
                join.is_finished().then(|| "peer thread ended".to_string())
            }
            Peer::Remote => None,
        }
    }
}

fn place_thread(cpu: u32, fifo: Option<u8>) -> Result<(), LinkError> {
    crate::cpu::pin_current_thread(cpu).map_err(|e| LinkError::Setup(e.to_string()))?;
    if let Some(p) = fifo {
        crate::cpu::set_fifo(p).map_err(|e| LinkError::Setup(e.to_string()))?;
    }
    Ok(())
}

/// A bare loop's host end with its peer running: the reference a link is
/// compared with (`bare.rs`), its peer started like icbench's own.
pub(crate) struct BareSession {
    pub(crate) host: icbench_link::reference::Bare,
    peer: Peer,
}

impl BareSession {
    /// Opens the descriptors of `m` and starts the bare peer for
    /// `size`-byte messages. `abort` is the host end's (the watchdog's).
    pub(crate) fn open(
        cfg: &EngineConfig,
        m: icbench_link::reference::Mechanism,
        size: usize,
        abort: Abort,
    ) -> Result<BareSession, String> {
        let (host, handoff) = icbench_link::reference::open(m, abort).map_err(|e| e.to_string())?;
        let peer = spawn_own(cfg, handoff, Role::Bare(size))?;
        Ok(BareSession { host, peer })
    }

    /// Closes the host end, which ends the peer's loop, and waits for the
    /// peer (killing a process that does not end within the grace time).
    /// Returns how the peer ended when it did not end well.
    pub(crate) fn close(self) -> Option<String> {
        let BareSession { host, peer } = self;
        drop(host);
        match peer {
            Peer::Remote => None,
            Peer::Process { mut child, .. } => reap(&mut child, QUIT_GRACE),
            Peer::Thread { join, abort, .. } => stop_thread(join, &abort, "bare peer"),
        }
    }
}

/// Waits up to `grace` for a peer process to exit, kills it if it has
/// not, and says how it ended when it did not end well.
///
/// Every peer process leads its own process group (`setpgid` in
/// `pre_exec`), and the whole group goes: a `--peer-cmd` wrapper without
/// `exec` (`sh -c 'icb-peer …; true'`) leaves its program behind as a
/// grandchild, which kept the stderr pipe open, so reading it blocked past
/// `--timeout` and Ctrl-C (issue #22).
fn reap(child: &mut Child, grace: Duration) -> Option<String> {
    let deadline = Instant::now() + grace;
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(2)),
            _ => {
                kill_group(child);
                let _ = child.kill();
                break child.wait().ok();
            }
        }
    };
    // What the peer left in its group goes with it.
    kill_group(child);
    describe_exit(status, stderr_of(child).trim())
}

/// SIGKILL to the process group the peer leads (its pid is the group id).
fn kill_group(child: &Child) {
    let Ok(pgid) = i32::try_from(child.id()) else { return };
    // SAFETY: kill(2) on a group this process created; ESRCH once it is empty.
    unsafe { libc::kill(-pgid, libc::SIGKILL) };
}

/// The most of a peer's standard error kept for a failure reason.
const STDERR_MAX: usize = 64 << 10;
/// How long the end of a peer's standard error is waited for once the peer
/// is gone: a process outside its group (one that called setsid) may hold
/// the pipe for ever.
const STDERR_WAIT: Duration = Duration::from_millis(200);

/// What an exited peer process wrote to its standard error: what is there,
/// up to [`STDERR_MAX`], within [`STDERR_WAIT`] — never a blocking read.
fn stderr_of(child: &mut Child) -> String {
    use rustix::event::{PollFd, PollFlags, poll};
    let Some(mut e) = child.stderr.take() else { return String::new() };
    let nonblocking = rustix::fs::fcntl_getfl(&e)
        .and_then(|fl| rustix::fs::fcntl_setfl(&e, fl | rustix::fs::OFlags::NONBLOCK));
    if nonblocking.is_err() {
        return String::new();
    }
    let deadline = Instant::now() + STDERR_WAIT;
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while buf.len() < STDERR_MAX {
        match e.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(err) if err.kind() == std::io::ErrorKind::WouldBlock => {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                let ts = rustix::time::Timespec::try_from(left).unwrap_or_default();
                let _ = poll(&mut [PollFd::new(&e, PollFlags::IN)], Some(&ts));
            }
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    buf.truncate(STDERR_MAX);
    String::from_utf8_lossy(&buf).into_owned()
}

/// Stops a peer thread: sets its abort, wakes it out of any blocking call
/// until it ends, and says how it ended when it did not end well (`who`
/// names it in the message).
fn stop_thread(
    join: JoinHandle<Result<(), LinkError>>,
    abort: &Abort,
    who: &str,
) -> Option<String> {
    abort.set();
    // std's RawPthread is an integer even where libc's pthread_t is a
    // pointer (musl).
    let thread = crate::watchdog::PthreadHandle(join.as_pthread_t() as libc::pthread_t);
    while !join.is_finished() {
        wake_thread(thread);
        std::thread::sleep(Duration::from_millis(2));
    }
    match join.join() {
        Ok(Ok(())) | Ok(Err(LinkError::Aborted | LinkError::PeerClosed)) => None,
        Ok(Err(e)) => Some(format!("{who} thread failed: {e}")),
        Err(_) => Some(format!("{who} thread panicked")),
    }
}

fn describe_exit(status: Option<std::process::ExitStatus>, stderr: &str) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    let st = status?;
    let how = if let Some(sig) = st.signal() {
        format!("peer was killed by signal {sig}{}", signal_name(sig))
    } else if st.success() {
        return None;
    } else {
        format!("peer exited with status {}", st.code().unwrap_or(-1))
    };
    let last = stderr.lines().last().unwrap_or("");
    Some(if last.is_empty() { how } else { format!("{how}: {last}") })
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        libc::SIGKILL => " (SIGKILL)",
        libc::SIGABRT => " (SIGABRT)",
        libc::SIGSEGV => " (SIGSEGV)",
        libc::SIGTERM => " (SIGTERM)",
        libc::SIGINT => " (SIGINT)",
        libc::SIGBUS => " (SIGBUS)",
        _ => "",
    }
}
