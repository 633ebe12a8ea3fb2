//! A session: one opened link with its peer running, from start to teardown.
//! A failed cell ends its session; the next cell gets a fresh link and a
//! fresh peer, so one broken cell cannot poison the rest of the run.

use std::io::Read;
use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::os::unix::thread::JoinHandleExt;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use icbench_link::{Abort, Link, LinkError, LinkSpec};

use crate::ctrl::Op;
use crate::watchdog::{install_wake_handler, wake_thread};
use crate::{EngineConfig, PeerLaunch, peer};

/// How long a peer gets to exit after "quit" before it is killed.
const QUIT_GRACE: Duration = Duration::from_secs(1);

enum Peer {
    Process { child: Child, pidfd: Option<Arc<OwnedFd>> },
    Thread { join: JoinHandle<Result<(), LinkError>>, abort: Abort },
}

pub(crate) struct Session {
    pub(crate) host: Box<dyn Link>,
    pub(crate) abort: Abort,
    peer: Peer,
}

impl Session {
    pub(crate) fn open(
        cfg: &EngineConfig,
        spec: &LinkSpec,
        fault: Option<crate::Fault>,
    ) -> Result<Session, String> {
        let abort = Abort::new();
        let (host, handoff) = icbench_link::open(spec, abort.clone()).map_err(|e| e.to_string())?;
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
                if let Some(f) = fault {
                    cmd.arg("--fault").arg(f.to_arg());
                }
                let fds: Vec<i32> = handoff.fds.iter().map(AsRawFd::as_raw_fd).collect();
                // SAFETY: only async-signal-safe calls (fcntl, prctl, setpgid) between
                // fork and exec.
                unsafe {
                    cmd.pre_exec(move || {
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
                let child = cmd
                    .spawn()
                    .map_err(|e| format!("cannot start the peer {}: {e}", exe.display()))?;
                // The host's copies of the peer's descriptors must go, or the
                // host would never see the peer close them.
                drop(handoff);
                let pidfd = rustix::process::pidfd_open(
                    rustix::process::Pid::from_child(&child),
                    rustix::process::PidfdFlags::empty(),
                )
                .ok()
                .map(Arc::new);
                Peer::Process { child, pidfd }
            }
            PeerLaunch::Thread => {
                install_wake_handler();
                let text = handoff.text.clone();
                // The peer end takes the descriptors over.
                let raw: Vec<i32> = handoff.fds.into_iter().map(IntoRawFd::into_raw_fd).collect();
                let peer_abort = Abort::new();
                let (pa, cpu, fifo) = (peer_abort.clone(), cfg.peer_cpu, cfg.fifo);
                let join = std::thread::Builder::new()
                    .name("icbench-peer".into())
                    .spawn(move || {
                        let attached = attach_thread(&text, &pa, cpu, fifo);
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
                        peer::serve(link.as_mut(), fault, &pa)
                    })
                    .map_err(|e| format!("cannot start the peer thread: {e}"))?;
                Peer::Thread { join, abort: peer_abort }
            }
        };
        Ok(Session { host, abort, peer })
    }

    pub(crate) fn pidfd(&self) -> Option<Arc<OwnedFd>> {
        match &self.peer {
            Peer::Process { pidfd, .. } => pidfd.clone(),
            Peer::Thread { .. } => None,
        }
    }

    /// Ends the session. `clean`: ask the peer to quit and give it time;
    /// otherwise stop it at once. Returns a description of how the peer
    /// ended when it did not end well (for a failure reason).
    pub(crate) fn close(mut self, clean: bool) -> Option<String> {
        if clean {
            self.abort.clear();
            let _ = self.host.send(&Op::Quit.encode());
        }
        let Session { host, peer, .. } = self;
        match peer {
            Peer::Process { mut child, .. } => {
                let deadline = Instant::now() + if clean { QUIT_GRACE } else { Duration::ZERO };
                let status = loop {
                    match child.try_wait() {
                        Ok(Some(st)) => break Some(st),
                        Ok(None) if Instant::now() < deadline => {
                            std::thread::sleep(Duration::from_millis(2))
                        }
                        _ => {
                            let _ = child.kill();
                            break child.wait().ok();
                        }
                    }
                };
                drop(host);
                let mut err = String::new();
                if let Some(mut e) = child.stderr.take() {
                    let _ = e.read_to_string(&mut err);
                }
                describe_exit(status, err.trim())
            }
            Peer::Thread { join, abort } => {
                abort.set();
                drop(host);
                let thread = join.as_pthread_t() as usize;
                while !join.is_finished() {
                    wake_thread(thread);
                    std::thread::sleep(Duration::from_millis(2));
                }
                match join.join() {
                    Ok(Ok(())) | Ok(Err(LinkError::Aborted | LinkError::PeerClosed)) => None,
                    Ok(Err(e)) => Some(format!("peer thread failed: {e}")),
                    Err(_) => Some("peer thread panicked".to_string()),
                }
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
        }
    }
}

fn attach_thread(
    text: &str,
    abort: &Abort,
    cpu: u32,
    fifo: Option<u8>,
) -> Result<Box<dyn Link>, LinkError> {
    crate::cpu::pin_current_thread(cpu).map_err(|e| LinkError::Setup(e.to_string()))?;
    if let Some(p) = fifo {
        crate::cpu::set_fifo(p).map_err(|e| LinkError::Setup(e.to_string()))?;
    }
    icbench_link::attach(text, abort.clone())
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
