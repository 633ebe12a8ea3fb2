//! Placeholder: minimal system-call loops measured beside the links.
