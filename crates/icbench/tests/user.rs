//! icbench run by an ordinary user (issue #22: a non-root run did not say
//! what root would add; only `doctor` did). Needs root to become another
//! user (setpriv), and a native binary; skipped with a message otherwise.

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use serde_json::Value;

#[test]
fn a_run_as_an_ordinary_user_says_what_it_goes_without() {
    if !cfg!(target_arch = "x86_64") || !rustix::process::geteuid().is_root() {
        eprintln!("SKIP ordinary user: needs root on x86_64 to drop to uid 65534");
        return;
    }
    let Ok(setpriv) = which("setpriv") else {
        eprintln!("SKIP ordinary user: no setpriv (util-linux)");
        return;
    };
    // The user cannot read the build directory (under /root): a copy of
    // the binary in a directory anyone may use.
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    let bin = dir.path().join("icbench");
    std::fs::copy(assert_cmd::cargo::cargo_bin("icbench"), &bin).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let db = dir.path().join("user.db");
    let out = Command::new(setpriv)
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&bin)
        .args(["run", "-L", "pipe", "-s", "64", "-p", "pingpong", "--cell-time", "5ms"])
        .args(["--replicates", "1", "--no-floor", "--json", "--db"])
        .arg(&db)
        .env_remove("ICBENCH_DB")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes: Vec<String> = serde_json::from_value(v["meta"]["notes"].clone()).unwrap();
    let note = notes.iter().find(|n| n.starts_with("not root (uid 65534)")).unwrap_or_else(|| {
        panic!("no note of what root would add: {notes:?}");
    });
    assert!(note.contains("--fifo needs root") && note.contains("icbench doctor"), "{note}");
}

fn which(name: &str) -> Result<std::path::PathBuf, ()> {
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
        .ok_or(())
}
