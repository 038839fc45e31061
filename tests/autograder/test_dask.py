"""The same batch on a dask.distributed cluster (a LocalCluster started here)."""

from __future__ import annotations

import json

from distributed import LocalCluster

from autograder.batch import grade_batch


def test_batch_runs_on_a_local_dask_cluster(tmp_path, reference_source):
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.py").write_text(reference_source)
    (tmp_path / "subs" / "ben.py").write_text("raise RuntimeError('broken at import')\n")
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        result = grade_batch("hypermines", [tmp_path / "subs" / "ann.py", tmp_path / "subs" / "ben.py"],
                             tmp_path / "results", dask_address=cluster.scheduler_address, seed=5, progress=False)
    scores = {r.student: r.score for r in result.reports}
    assert scores == {"ann": 20, "ben": 0}
    ben = json.loads((tmp_path / "results" / "ben" / "results.json").read_text())
    assert {t["output"] for t in ben["tests"]} == {"not run: the submission did not load"}
    assert "RuntimeError: broken at import" in (tmp_path / "results" / "ben" / "feedback.txt").read_text()
