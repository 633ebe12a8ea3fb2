//! What icbench tells the user on stderr while it works (a run's start,
//! its notes, why it stopped): one message, `icbench: ` first, wrapped to
//! the text width with its continuation under the message (issue #29: a
//! run's first line was 114 columns with its database's path). Errors stay
//! on one line (`main`), for scripts that read them.

/// Prints `text` to stderr as `icbench: TEXT`, wrapped.
pub fn say(text: &str) {
    let width = icbench_report::table::text_width();
    crate::errln!("icbench: {}", icbench_report::format::hanging(text, 9, width));
}
