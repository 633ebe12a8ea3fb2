# SPDX-License-Identifier: MIT OR Apache-2.0
"""IcbenchStrategy: a labgrid strategy that takes a board to a shell
(power on, then the console or SSH shell) and, from there, runs an icbench
plan on it and merges the board's database into a lab store.

In an environment file (the module is imported by `imports:`):

    imports:
      - icbench_labgrid.strategy
    targets:
      mp1:
        drivers:
          ...                       # power, console, ShellDriver or SSHDriver
          IcbenchStrategy: {}

    strategy = target.get_driver("IcbenchStrategy")
    strategy.transition("shell")
    result = strategy.run_plan("plans/x.toml", "lab.db", builds)
"""
import enum

import attr
from labgrid.factory import target_factory
from labgrid.step import step
from labgrid.strategy import Strategy, StrategyError

from .lab import BoardRun


class Status(enum.Enum):
    unknown = 0
    off = 1
    shell = 2


@target_factory.reg_driver
@attr.s(eq=False)
class IcbenchStrategy(Strategy):
    bindings = {
        "power": {"PowerProtocol", None},
        "shell": "CommandProtocol",
    }

    status = attr.ib(default=Status.unknown)

    @step(args=["status"])
    def transition(self, status, *, step):  # pylint: disable=redefined-outer-name
        if not isinstance(status, Status):
            status = Status[status]
        if status == Status.unknown:
            raise StrategyError(f"can not transition to {status}")
        if status == self.status:
            step.skip("nothing to do")
            return
        if status == Status.off:
            self.target.deactivate(self.shell)
            if self.power is not None:
                self.target.activate(self.power)
                self.power.off()
        elif status == Status.shell:
            if self.power is not None:
                self.target.activate(self.power)
                self.power.on()
            self.target.activate(self.shell)  # waits for the prompt (login_timeout)
        self.status = status

    def run_plan(self, plan, store, builds, **kwargs):
        """Deploy, run, fetch and merge on this board (BoardRun); returns its
        BoardResult. kwargs: icbench_host, fetch_dir, run_args, timeout, log."""
        kwargs.setdefault("icbench_host", builds.host_binary())
        kwargs.setdefault("fetch_dir", f"{store}.boards")
        kwargs.setdefault("power_off", False)
        import os
        os.makedirs(kwargs["fetch_dir"], exist_ok=True)
        return BoardRun(self.target, builds, plan, store, **kwargs)()
