"""`make test`'s scheduler: pytest-xdist's ``--dist loadgroup``, made to end when a worker crashes.

A worker that dies in a test (the kernel's OOM killer, a segfault, ``os._exit``) is reported by
pytest-xdist as a failure naming that test, and a new worker replaces it. pytest-xdist 3.8's
group scheduler then loses its way in three manners, and the run either hangs with no output or
ends without some results:

* it queues the crashed test again with the rest of its group, so the new worker runs it and
  crashes in turn, until the restarts allowed are spent and the run stops with tests not run;
* it queues again every group the dead worker had finished, as groups with nothing left to run:
  a worker given one does nothing, and the scheduler, which gives more work only when a test
  ends, can wait forever;
* it gives the new worker one group, and a group of one test is never started: a worker runs a
  test only once it knows the next one, or that none will follow.

``GroupScheduling`` queues again only the tests the dead worker had not run, crashed one
excepted, at the head of the queue, and keeps every worker holding two tests or told that no more
will come. tests/test_run_ends.py crashes a worker in an inner run of the suite's own
configuration and checks that the run ends with every other test run.
"""

from __future__ import annotations

from typing import Any

from xdist.scheduler import LoadGroupScheduling


class GroupScheduling(LoadGroupScheduling):
    """``--dist loadgroup`` whose run ends, with every other result, when a worker crashes."""

    def remove_node(self, node: Any) -> str | None:
        workload = self.assigned_work.pop(node)
        running = next((nodeid for unit in workload.values() for nodeid, done in unit.items() if not done), None)
        if running is None:  # a worker leaving at the end of the run, or one that crashed between tests
            return None
        # pytest-xdist reports the crashed test as failed: it is not run again
        left = {
            group: {nodeid: False for nodeid, done in unit.items() if not done and nodeid != running}
            for group, unit in workload.items()
        }
        for group, unit in reversed(list(left.items())):
            if unit:
                self.workqueue[group] = unit
                self.workqueue.move_to_end(group, last=False)
        for other in self.assigned_work:
            self._reschedule(other)
        return running

    def _reschedule(self, node: Any) -> None:
        if node.shutting_down or node not in self.registered_collections:  # a new worker still collecting
            return
        if self.workqueue and self._pending_of(self.assigned_work[node]) <= 2:
            self._assign_work_unit(node)
        # a worker holding a single test waits for the next one before it runs it
        while self.workqueue and self._pending_of(self.assigned_work[node]) < 2:
            self._assign_work_unit(node)
        if not self.workqueue:
            node.shutdown()
