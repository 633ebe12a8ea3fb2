//! The arguments of the remote-core commands: `rpmsg` binds channels to
//! the character driver, `remote` drives remoteproc.

use clap::{Args, Subcommand};

#[derive(Debug, Subcommand)]
pub enum RpmsgCommand {
    /// Bind CHANNEL (a name under /sys/bus/rpmsg/devices) to the driver,
    /// as ADI's rpmsg-bind-chardev does: driver_override, then bind.
    Bind(RpmsgBindArgs),
    /// Unbind CHANNEL from its driver and clear its driver_override.
    Unbind(RpmsgBindArgs),
}

#[derive(Debug, Args)]
pub struct RpmsgBindArgs {
    /// The channel, e.g. virtio0.rpmsg-raw.-1.30 (`icbench links` lists them).
    pub channel: String,
    /// The rpmsg driver.
    #[arg(long, default_value = "rpmsg_chrdev")]
    pub driver: String,
}

#[derive(Debug, Subcommand)]
pub enum RemoteCommand {
    /// Every remote processor with its name, state and firmware.
    List,
    /// One remote processor's state and firmware.
    Status(RprocArg),
    /// Start it (echo start > state).
    Start(RprocArg),
    /// Stop it (echo stop > state).
    Stop(RprocArg),
    /// Set the firmware the next start loads (a file under /lib/firmware);
    /// the core must be offline.
    Load(LoadArgs),
}

#[derive(Debug, Args)]
pub struct RprocArg {
    /// remoteprocN, N, or its name; may be left out when there is only one.
    #[arg(long, short = 'r', value_name = "RPROC")]
    pub rproc: Option<String>,
}

#[derive(Debug, Args)]
pub struct LoadArgs {
    /// Firmware file name, relative to the firmware search path.
    pub firmware: String,
    #[command(flatten)]
    pub which: RprocArg,
}
