//! Load generators: bounded interference on chosen CPUs while a realtime
//! pattern measures, so that idle and loaded runs of one plan can be
//! compared (the 004 paper: cyclictest on idle boards and under a ping
//! flood).
//!
//! stress-ng runs the load when it is installed (`--taskset`, one worker per
//! CPU, and always `--timeout`); otherwise — or with [`LoadTool::Builtin`] —
//! threads of icbench do: cpu spin, memory streaming, pipe ping-pong, fsync
//! of a temporary file, TCP ping-pong over loopback (never another address).
//! Either way the load is bounded twice: by its own deadline, and by
//! [`RunningLoad::stop`], which ends it and waits for it.

use std::io::{Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cpu;

/// A kind of load (`--load`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadKind {
    Cpu,
    Memory,
    Ipc,
    Io,
    Net,
}

impl LoadKind {
    pub const ALL: [LoadKind; 5] =
        [LoadKind::Cpu, LoadKind::Memory, LoadKind::Ipc, LoadKind::Io, LoadKind::Net];

    pub fn as_str(self) -> &'static str {
        match self {
            LoadKind::Cpu => "cpu",
            LoadKind::Memory => "memory",
            LoadKind::Ipc => "ipc",
            LoadKind::Io => "io",
            LoadKind::Net => "net",
        }
    }

    pub fn parse(s: &str) -> Option<LoadKind> {
        LoadKind::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The stress-ng stressor and its extra options.
    fn stress_ng(self) -> (&'static str, &'static [&'static str]) {
        match self {
            LoadKind::Cpu => ("--cpu", &[]),
            LoadKind::Memory => ("--vm", &["--vm-bytes", "64M"]),
            LoadKind::Ipc => ("--pipe", &[]),
            LoadKind::Io => ("--hdd", &["--hdd-bytes", "16M"]),
            // stress-ng's socket stressor connects to localhost.
            LoadKind::Net => ("--sock", &["--sock-domain", "ipv4"]),
        }
    }
}

/// Who generates the load.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadTool {
    /// stress-ng when installed, the built-in generator otherwise.
    Auto,
    StressNg,
    Builtin,
}

/// What to run, where, and for at most how long.
#[derive(Debug, Clone)]
pub struct LoadPlan {
    pub kinds: Vec<LoadKind>,
    pub cpus: Vec<u32>,
    pub tool: LoadTool,
    /// The load ends by itself after this long, even if never stopped.
    pub bound: Duration,
    /// Where the io load writes its temporary file.
    pub tmp_dir: PathBuf,
}

/// A load that is running.
#[derive(Debug)]
pub struct RunningLoad {
    /// What runs, in words ("stress-ng --cpu 2 --taskset 0,1 …").
    pub description: String,
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// Units of work done by the built-in generator (loops, copies,
    /// messages, fsyncs), summed over its threads.
    work: Arc<AtomicU64>,
    child: Option<Child>,
}

/// How a load ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadReport {
    pub description: String,
    /// Built-in generator: units of work done; stress-ng: `None`.
    pub work_units: Option<u64>,
    /// stress-ng's exit status, when it ran.
    pub exit: Option<String>,
}

/// Is stress-ng on PATH?
pub fn stress_ng_available() -> bool {
    Command::new("stress-ng")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl RunningLoad {
    /// Starts the load.
    pub fn start(plan: &LoadPlan) -> Result<RunningLoad, String> {
        if plan.kinds.is_empty() || plan.cpus.is_empty() {
            return Err("a load needs at least one kind and one CPU".to_string());
        }
        let use_stress = match plan.tool {
            LoadTool::Builtin => false,
            LoadTool::StressNg => {
                if !stress_ng_available() {
                    return Err("stress-ng is not installed (apt install stress-ng)".to_string());
                }
                true
            }
            LoadTool::Auto => stress_ng_available(),
        };
        if use_stress { start_stress_ng(plan) } else { start_builtin(plan) }
    }

    /// Work done so far by the built-in generator.
    pub fn work_units(&self) -> u64 {
        self.work.load(Ordering::Relaxed)
    }

    /// Ends the load and waits for it.
    pub fn stop(mut self) -> LoadReport {
        self.stop.store(true, Ordering::SeqCst);
        let mut exit = None;
        if let Some(mut child) = self.child.take() {
            exit = Some(end_child(&mut child));
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
        LoadReport {
            description: self.description.clone(),
            work_units: exit.is_none().then(|| self.work.load(Ordering::Relaxed)),
            exit,
        }
    }
}

impl Drop for RunningLoad {
    /// A load is never left behind, even on an early return.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(mut child) = self.child.take() {
            end_child(&mut child);
        }
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

/// SIGTERM to stress-ng's process group, then SIGKILL after 5 s.
fn end_child(child: &mut Child) -> String {
    let pgid = child.id() as i32;
    // SAFETY: signalling a process group we created.
    unsafe { libc::kill(-pgid, libc::SIGTERM) };
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return s.to_string(),
            Ok(None) if Instant::now() < until => std::thread::sleep(Duration::from_millis(20)),
            _ => {
                // SAFETY: as above.
                unsafe { libc::kill(-pgid, libc::SIGKILL) };
                return child.wait().map_or_else(|e| e.to_string(), |s| s.to_string());
            }
        }
    }
}

fn cpu_list(cpus: &[u32]) -> String {
    cpus.iter().map(u32::to_string).collect::<Vec<_>>().join(",")
}

fn start_stress_ng(plan: &LoadPlan) -> Result<RunningLoad, String> {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new("stress-ng");
    let n = plan.cpus.len().to_string();
    let secs = plan.bound.as_secs().max(1);
    cmd.args(["--timeout", &format!("{secs}s"), "--taskset", &cpu_list(&plan.cpus), "--quiet"]);
    cmd.arg("--temp-path").arg(&plan.tmp_dir);
    for k in &plan.kinds {
        let (stressor, extra) = k.stress_ng();
        cmd.args([stressor, &n]).args(extra.iter());
    }
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    // Its own process group, so stop() ends every worker; and it dies with
    // icbench (PR_SET_PDEATHSIG).
    cmd.process_group(0);
    // SAFETY: prctl is async-signal-safe.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let description = format!(
        "stress-ng --timeout {secs}s --taskset {} {}",
        cpu_list(&plan.cpus),
        plan.kinds
            .iter()
            .map(|k| format!(
                "{} {n}{}",
                k.stress_ng().0,
                k.stress_ng().1.iter().map(|e| format!(" {e}")).collect::<String>()
            ))
            .collect::<Vec<_>>()
            .join(" ")
    );
    let child = cmd.spawn().map_err(|e| format!("starting stress-ng: {e}"))?;
    Ok(RunningLoad {
        description,
        stop: Arc::new(AtomicBool::new(false)),
        threads: Vec::new(),
        work: Arc::new(AtomicU64::new(0)),
        child: Some(child),
    })
}

/// Everything a built-in load thread needs.
#[derive(Clone)]
struct Ctx {
    stop: Arc<AtomicBool>,
    work: Arc<AtomicU64>,
    until: Instant,
    cpu: u32,
}

impl Ctx {
    fn go_on(&self) -> bool {
        !self.stop.load(Ordering::Relaxed) && Instant::now() < self.until
    }
    fn did(&self, n: u64) {
        self.work.fetch_add(n, Ordering::Relaxed);
    }
}

fn start_builtin(plan: &LoadPlan) -> Result<RunningLoad, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let work = Arc::new(AtomicU64::new(0));
    let until = Instant::now() + plan.bound;
    let mut load = RunningLoad {
        description: format!(
            "built-in {} on CPUs {} (at most {} s)",
            plan.kinds.iter().map(|k| k.as_str()).collect::<Vec<_>>().join("+"),
            cpu_list(&plan.cpus),
            plan.bound.as_secs_f64()
        ),
        stop: stop.clone(),
        threads: Vec::new(),
        work: work.clone(),
        child: None,
    };
    for &kind in &plan.kinds {
        for &cpu in &plan.cpus {
            let ctx = Ctx { stop: stop.clone(), work: work.clone(), until, cpu };
            let tmp = plan.tmp_dir.clone();
            // A failure to start is returned; `load` is dropped, which
            // stops what already runs.
            let spawn = |name: String, f: Box<dyn FnOnce() + Send>| {
                std::thread::Builder::new().name(name).spawn(f).map_err(|e| e.to_string())
            };
            let name = format!("icb-load-{}{cpu}", kind.as_str());
            let body: Box<dyn FnOnce() + Send> = match kind {
                LoadKind::Cpu => Box::new(move || pinned(&ctx, spin)),
                LoadKind::Memory => Box::new(move || pinned(&ctx, stream_memory)),
                LoadKind::Ipc => Box::new(move || pinned(&ctx, pipe_pingpong)),
                LoadKind::Io => Box::new(move || pinned(&ctx, |c| fsync_file(c, &tmp))),
                LoadKind::Net => Box::new(move || pinned(&ctx, loopback_tcp)),
            };
            load.threads.push(spawn(name, body)?);
        }
    }
    Ok(load)
}

fn pinned(ctx: &Ctx, f: impl FnOnce(&Ctx)) {
    if cpu::pin_current_thread(ctx.cpu).is_ok() {
        f(ctx);
    }
}

fn spin(ctx: &Ctx) {
    let mut x = 1u64;
    while ctx.go_on() {
        for _ in 0..100_000 {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        ctx.did(1);
    }
}

fn stream_memory(ctx: &Ctx) {
    // Larger than the last-level caches of the boards icbench targets.
    const BYTES: usize = 32 << 20;
    let src = vec![1u8; BYTES];
    let mut dst = vec![0u8; BYTES];
    while ctx.go_on() {
        for (d, s) in dst.chunks_mut(1 << 20).zip(src.chunks(1 << 20)) {
            d.copy_from_slice(s);
        }
        std::hint::black_box(&dst);
        ctx.did(1);
    }
}

/// Two threads on one CPU passing a byte through two pipes (what
/// hackbench and lat_pipe do), waking each other in turn.
fn pipe_pingpong(ctx: &Ctx) {
    let (Ok((r1, w1)), Ok((r2, w2))) = (rustix::pipe::pipe(), rustix::pipe::pipe()) else {
        return;
    };
    let partner_ctx = ctx.clone();
    let partner = std::thread::spawn(move || {
        if cpu::pin_current_thread(partner_ctx.cpu).is_err() {
            return;
        }
        let mut b = [0u8; 1];
        // Ends when the other side's write end closes (read returns 0).
        while let Ok(1) = rustix::io::read(&r1, &mut b) {
            if rustix::io::write(&w2, &b).is_err() {
                break;
            }
        }
    });
    let mut b = [0u8; 1];
    while ctx.go_on() {
        if rustix::io::write(&w1, &b).is_err() || rustix::io::read(&r2, &mut b) != Ok(1) {
            break;
        }
        ctx.did(1);
    }
    drop(w1);
    let _ = partner.join();
}

fn fsync_file(ctx: &Ctx, dir: &std::path::Path) {
    let path = dir.join(format!("icbench-load-io-{}-{}", std::process::id(), ctx.cpu));
    let Ok(mut f) = std::fs::File::create(&path) else { return };
    let block = [0x5au8; 4096];
    let mut written = 0u64;
    while ctx.go_on() {
        if f.write_all(&block).and_then(|()| f.sync_data()).is_err() {
            break;
        }
        written += 1;
        // Keep the file small: start over every 16 MiB.
        if written.is_multiple_of(4096) {
            let _ = f.set_len(0);
            let _ = std::io::Seek::rewind(&mut f);
        }
        ctx.did(1);
    }
    drop(f);
    let _ = std::fs::remove_file(&path);
}

/// A TCP connection over 127.0.0.1 with 64-byte messages going back and
/// forth; reads time out every 100 ms so both sides see the end.
fn loopback_tcp(ctx: &Ctx) {
    let Ok(listener) = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)) else { return };
    let Ok(addr) = listener.local_addr() else { return };
    let partner_ctx = ctx.clone();
    let server = std::thread::spawn(move || {
        if cpu::pin_current_thread(partner_ctx.cpu).is_err() {
            return;
        }
        let Ok((mut s, _)) = listener.accept() else { return };
        let _ = s.set_read_timeout(Some(Duration::from_millis(100)));
        let mut buf = [0u8; 64];
        while partner_ctx.go_on() {
            match s.read_exact(&mut buf) {
                Ok(()) => {
                    if s.write_all(&buf).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => continue,
                Err(_) => break,
            }
        }
    });
    if let Ok(mut c) = TcpStream::connect(addr) {
        let _ = c.set_nodelay(true);
        let _ = c.set_read_timeout(Some(Duration::from_millis(100)));
        let mut buf = [0u8; 64];
        while ctx.go_on() {
            if c.write_all(&buf).is_err() || c.read_exact(&mut buf).is_err() {
                break;
            }
            ctx.did(1);
        }
    }
    let _ = server.join();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::CpuList;

    fn plan(kinds: Vec<LoadKind>, tool: LoadTool, bound: Duration) -> LoadPlan {
        LoadPlan {
            kinds,
            cpus: CpuList::usable().cpus.into_iter().take(2).collect(),
            tool,
            bound,
            tmp_dir: std::env::temp_dir(),
        }
    }

    /// Waits (without a timed assertion) until `f` holds.
    fn eventually(mut f: impl FnMut() -> bool) {
        while !f() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn every_builtin_load_starts_works_and_stops_when_told() {
        for kind in LoadKind::ALL {
            let load =
                RunningLoad::start(&plan(vec![kind], LoadTool::Builtin, Duration::from_secs(600)))
                    .unwrap();
            eventually(|| load.work_units() > 0);
            let report = load.stop();
            assert!(report.work_units.unwrap() > 0, "{kind:?}");
            assert!(report.exit.is_none());
        }
    }

    #[test]
    fn a_builtin_load_ends_by_itself_at_its_bound() {
        let load = RunningLoad::start(&plan(
            vec![LoadKind::Cpu, LoadKind::Ipc, LoadKind::Net],
            LoadTool::Builtin,
            Duration::from_millis(200),
        ))
        .unwrap();
        // Without stop(): every thread finishes on its own.
        let mut load = load;
        for t in load.threads.drain(..) {
            t.join().unwrap();
        }
        assert!(load.work_units() > 0);
    }

    #[test]
    fn the_io_load_leaves_no_file_behind() {
        let dir = tempfile_dir();
        let mut p = plan(vec![LoadKind::Io], LoadTool::Builtin, Duration::from_secs(600));
        p.tmp_dir = dir.clone();
        let load = RunningLoad::start(&p).unwrap();
        eventually(|| load.work_units() > 0);
        load.stop();
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
        std::fs::remove_dir(&dir).unwrap();
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("icbench-load-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn stress_ng_starts_and_is_stopped() {
        if !stress_ng_available() {
            eprintln!("skipped: stress-ng is not installed (apt install stress-ng)");
            return;
        }
        let load = RunningLoad::start(&plan(
            vec![LoadKind::Cpu],
            LoadTool::StressNg,
            Duration::from_secs(600),
        ))
        .unwrap();
        assert!(load.description.starts_with("stress-ng --timeout 600s"), "{}", load.description);
        let pid = load.child.as_ref().unwrap().id() as i32;
        let report = load.stop();
        assert!(report.exit.is_some());
        // The process group is gone.
        // SAFETY: signal 0 only checks existence.
        assert_eq!(unsafe { libc::kill(-pid, 0) }, -1);
    }

    #[test]
    fn stress_ng_ends_by_itself_at_its_timeout() {
        if !stress_ng_available() {
            eprintln!("skipped: stress-ng is not installed (apt install stress-ng)");
            return;
        }
        let mut load = RunningLoad::start(&plan(
            vec![LoadKind::Cpu],
            LoadTool::StressNg,
            Duration::from_secs(1),
        ))
        .unwrap();
        let status = load.child.as_mut().unwrap().wait().unwrap();
        assert!(status.success(), "{status}");
    }
}
