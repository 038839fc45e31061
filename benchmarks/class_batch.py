"""A whole class's HyperMines submissions, graded in one batch and summarised by `autograder report`.

Generates 54 submissions of mixed quality from the plain reference solution: correct ones,
mutants (one or two bugs each, made by replacing one piece of the reference's code), hostile
ones (do not parse, refused import, endless loop or memory hog at import, no class, endless
recursion, exception in the constructor, a flood of prints, an empty file) and slow ones (busy
work in every dig, an endless render, a slow constructor, a slow but correct victory check, an
endless loop on some digs). Grades them with ``autograder grade`` (small time limits, so the slow
ones hit them) and writes the batch report.

    python -m benchmarks.class_batch                      # -> bench-results/class-batch/results/report.html
    python -m benchmarks.class_batch -j 2 --out DIR
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from autograder.assignments import instructor_dir
from autograder.batch import grade_batch
from autograder.batch_report import terminal_summary, write_report

ROOT = Path(__file__).resolve().parent.parent

# (old, new): each replaces one piece of the reference, which must appear exactly once.
MUTATIONS = {
    "edge_includes_size": ("if 0 <= p < size]", "if 0 <= p <= size]"),
    "torus_counts_twice": ("return sorted({(x - 1) % size, x, (x + 1) % size})",
                           "return sorted([(x - 1) % size, x, (x + 1) % size])"),
    "bombs_count_double": ("set_coords(board, cell, value + charge)", "set_coords(board, cell, value + 2 * charge)"),
    "repeated_bombs_count_twice": ("distinct = {tuple(bomb) for bomb in bombs}",
                                   "distinct = [tuple(bomb) for bomb in bombs]"),
    "digs_after_the_end": ('if self.state != "ongoing" or get_coords(self.mask, coordinates):',
                           "if get_coords(self.mask, coordinates):"),
    "bomb_stays_covered": ('            set_coords(self.mask, coordinates, True)\n            self.state = "defeat"',
                           '            self.state = "defeat"'),
    "never_wins": ('self.state = "victory"', 'self.state = "ongoing"'),
    "counts_one_cell": ("revealed += 1", "revealed = 1"),
    "floods_past_numbers": ("if flood and get_coords(self.board, cell) == 0:", "if flood:"),
    "never_floods": ("if flood and get_coords(self.board, cell) == 0:", "if False:"),
    "zero_shown_as_digit": ("return ZERO if board == 0 else str(board)", "return str(board)"),
    "xray_ignored": ("if not (mask or xray):", "if not mask:"),
    "wrong_hidden_symbol": ('HIDDEN = "_"', 'HIDDEN = "#"'),
    "dimensions_as_tuple": ("self.dimensions = dimensions", "self.dimensions = tuple(dimensions)"),
}


def patch(method: str, body: str) -> str:
    """Code appended to the reference that replaces one method of HyperMinesGame."""
    indented = "\n".join("    " + line for line in body.strip().splitlines())
    return f"\n\n_original_{method} = HyperMinesGame.{method}\n\n\ndef _{method}(self, *args, **kwargs):\n{indented}\n\n\n" \
           f"HyperMinesGame.{method} = _{method}\n"


# name: (text appended to the reference, or a whole file when it starts with "WHOLE:")
HOSTILE = {
    "does_not_parse": "\n\ndef unfinished(:\n    pass\n",
    "refused_import": "\n\nimport socket\n",
    "loops_at_import": "\n\nwhile True:\n    pass\n",
    "hogs_memory_at_import": "\n\n_hog = [0] * (10 ** 10)\n",
    "no_class": "\n\ndel HyperMinesGame\n",
    "recursion_in_dig": patch("dig", "return self.dig(*args, **kwargs)"),
    "raises_in_constructor": patch("__init__", 'raise NotImplementedError("TODO: write the constructor")'),
    "prints_a_flood": "\n\nfor _ in range(300):\n    print('debugging ' * 5000)\n",
    "empty_file": "WHOLE:# I ran out of time, sorry\n",
}
SLOW = {
    "busy_work_in_every_dig": patch("dig", "n = 0\nfor _ in range(4_000_000):\n    n += 1\n"
                                           "return _original_dig(self, *args, **kwargs)"),
    "endless_render": patch("render", "while True:\n    pass"),
    "slow_constructor": patch("__init__", "n = 0\nfor _ in range(6_000_000):\n    n += 1\n"
                                          "_original___init__(self, *args, **kwargs)"),
    "endless_loop_on_odd_digs": patch("dig", "if sum(args[0]) % 2:\n    while True:\n        pass\n"
                                             "return _original_dig(self, *args, **kwargs)"),
    "slow_victory_check": ("REPLACE", "if all_safe_revealed(self.board, self.mask):",
                           "if all(get_coords(self.board, c) == BOMB or get_coords(self.mask, c)\n"
                           "               for c in all_coords(self.dimensions)):"),
}


def mutate(source: str, names: list[str]) -> str:
    for name in names:
        old, new = MUTATIONS[name]
        if source.count(old) != 1:
            raise ValueError(f"mutation {name}: the reference no longer holds {old!r} exactly once")
        source = source.replace(old, new)
    return source


def generate(folder: Path) -> list[Path]:
    """Write the class's submissions into ``folder``: one ``<student>.py`` each."""
    reference = (instructor_dir() / "reference" / "hypermines.py").read_text(encoding="utf-8")
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[str, str] = {}
    for i in range(14):
        files[f"correct-{i + 1:02d}"] = reference + f"\n# submitted by student {i + 1}\n"
    names = list(MUTATIONS)
    for i, name in enumerate(names):
        files[f"mutant-{name}"] = mutate(reference, [name])
    for i in range(12):
        pair = [names[i], names[(i + 5) % len(names)]]
        files[f"mutants-{pair[0]}+{pair[1]}"] = mutate(reference, pair)
    for name, extra in HOSTILE.items():
        files[f"hostile-{name}"] = extra[len("WHOLE:"):] if extra.startswith("WHOLE:") else reference + extra
    for name, extra in SLOW.items():
        if isinstance(extra, tuple):
            _, old, new = extra
            if reference.count(old) != 1:
                raise ValueError(f"slow variant {name}: the reference no longer holds {old!r} exactly once")
            files[f"slow-{name}"] = reference.replace(old, new)
        else:
            files[f"slow-{name}"] = reference + extra
    paths = []
    for student, text in files.items():
        path = folder / f"{student}.py"
        path.write_text(text, encoding="utf-8")
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "class-batch")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--time-limit", type=float, default=30.0, help="budget per submission, seconds")
    parser.add_argument("--test-time-limit", type=float, default=5.0, help="cap on each test's limit, seconds")
    parser.add_argument("--seed", type=int, default=20261123)
    args = parser.parse_args(argv)
    submissions, results = args.out / "submissions", args.out / "results"
    for folder in (submissions, results):
        if folder.exists():
            shutil.rmtree(folder)
    paths = generate(submissions)
    started = time.perf_counter()
    grade_batch("hypermines", paths, results, jobs=args.jobs, seed=args.seed, time_limit=args.time_limit,
                test_time_limit=args.test_time_limit, force=True)
    graded = time.perf_counter() - started
    started = time.perf_counter()
    page, summary = write_report(results)
    reported = time.perf_counter() - started
    print(terminal_summary(summary, page))
    print(f"{len(paths)} submissions graded in {graded:.0f} s with {args.jobs} workers; report written in "
          f"{reported:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
