//! The man page and completions that packaging installs (contrib/man,
//! contrib/completions) are the ones `icbench generate` renders from the
//! command line as it is now (issue #19 item 5): a changed option fails
//! here until `scripts/generate` is run.

mod common;

use std::path::Path;

#[test]
fn packaged_man_page_and_completions_match_the_command_line() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for (what, file) in [
        ("man", "contrib/man/icbench.1"),
        ("bash", "contrib/completions/icbench.bash"),
        ("zsh", "contrib/completions/_icbench"),
        ("fish", "contrib/completions/icbench.fish"),
    ] {
        let out = common::icbench().args(["generate", what]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let stored = std::fs::read(root.join(file)).unwrap();
        assert!(
            out.stdout == stored,
            "{file} is not what `icbench generate {what}` prints: run scripts/generate"
        );
    }
    // What they carry: every public command, never the internal peer
    // command; the man page names no page that is not shipped (issue #29:
    // it pointed at icbench-run(1) and others).
    let man = std::fs::read_to_string(root.join("contrib/man/icbench.1")).unwrap();
    for cmd in ["run", "runs", "show", "compare", "floor", "import", "generate"] {
        assert!(man.contains(&format!("icbench {cmd}")), "{cmd} missing from the man page");
    }
    assert!(
        !man.contains("peer\\fR") && !man.contains("_peer"),
        "the internal command is documented"
    );
    let shipped: Vec<String> = std::fs::read_dir(root.join("contrib/man"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for (i, _) in man.match_indices("(1)") {
        let name = man[..i].rsplit(|c: char| c.is_whitespace()).next().unwrap().replace("\\-", "-");
        let name = name.trim_start_matches("\\fB").to_string();
        assert!(
            shipped.contains(&format!("{name}.1")),
            "the man page refers to {name}(1), not shipped"
        );
    }
    let bash = std::fs::read_to_string(root.join("contrib/completions/icbench.bash")).unwrap();
    assert!(bash.contains("--replicates") && bash.contains("--baseline"), "completions");
    // No completion offers the internal peer command (issue #29).
    for file in ["icbench.bash", "_icbench", "icbench.fish"] {
        let text = std::fs::read_to_string(root.join("contrib/completions").join(file)).unwrap();
        assert!(!text.contains("__peer"), "{file} offers the internal command");
        assert!(text.contains("histogram"), "{file} lacks timer's options");
    }
}
