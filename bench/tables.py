#!/usr/bin/env python3
"""Runs mfprio's benchmark programs and prints bench/README.md's tables (Markdown).

    bench/tables.py BUILD_DIR [PROGRAM...]     run them, then print the tables
    bench/tables.py --from DIR [PROGRAM...]    print the tables of earlier runs' JSON files

Each program runs with five repetitions, its benchmarks interleaved in random order (a slow
spell of a shared machine then falls on one repetition of several benchmarks rather than on
every repetition of one), and the medians are reported, in the program's order; its Google Benchmark
JSON is kept in BUILD_DIR/bench-results/PROGRAM.json. The tables give each benchmark's median
time per iteration and its counters (ns per job or per association, etc.), plus, where a
benchmark program compares variants, each variant's time as a ratio to the baseline measured in
the same run. Nothing is timed by this script itself.
"""

import json
import os
import subprocess
import sys

PROGRAMS = ["slurm_factor_bench", "slurm_engine_bench", "slurm_engine_bench_o2", "maui_bench", "queue_bench", "fairshare_bench", "site_bench",
            "cli_bench"]

# The programs whose benchmarks fall into kinds (engine/, fs/, pass/...) with counters of their own.
GROUPED = {"slurm_factor_bench", "maui_bench", "queue_bench", "site_bench"}

# The baseline each program's ratios are taken against (a benchmark name), where it has one.
BASELINES = {
    "slurm_engine_bench": "bm_memory_floor",
    "slurm_engine_bench_o2": "bm_memory_floor",
    "maui_bench": "engine/dispatched",
    "queue_bench": None,
    "site_bench": "update/plain_c",
}


def run(build, program, out_dir):
    exe = os.path.join(build, "bench", program)
    out = os.path.join(out_dir, program + ".json")
    subprocess.run([exe, "--benchmark_repetitions=5", "--benchmark_enable_random_interleaving=true",
                    "--benchmark_report_aggregates_only=true",
                    "--benchmark_out=" + out, "--benchmark_out_format=json"],
                   check=True, stdout=subprocess.DEVNULL)
    return out


def number(v):
    if v >= 100:
        return "%.0f" % v
    if v >= 10:
        return "%.1f" % v
    return "%.2f" % v


def per_unit(name, value):
    """A counter in readable units: seconds-per-item counters as ns, ratios as 1.23x, others
    as they are."""
    if name.startswith("ratio"):
        return "%.2fx" % value
    if name.startswith("ns_per") or name.startswith("us_per"):
        return number(value * 1e9) if name.startswith("ns_per") else number(value * 1e6)
    if name.endswith("_per_second") or name.endswith("per_second"):
        return "%.3gM/s" % (value / 1e6)
    return number(value)


SKIP = {"name", "run_name", "run_type", "aggregate_name", "aggregate_unit", "iterations", "real_time", "cpu_time",
        "time_unit", "family_index", "per_family_instance_index", "repetitions", "threads", "repetition_index",
        "items_per_second", "bytes_per_second", "label", "error_occurred", "error_message"}


def group_table(rows, base):
    """One Markdown table of `rows` (benchmarks of one group), with their counters and, when
    `base` (a median time of the same group) is given, each row's time as a ratio to it."""
    counters = []
    for b in rows:
        for k in b:
            if k not in SKIP and k not in counters:
                counters.append(k)
    head = ["benchmark", "median time"] + counters + (["ratio to " + base["run_name"]] if base else [])
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for b in rows:
        name = b["run_name"].removesuffix("/manual_time")  # a benchmark timing its own passes
        cells = ["`" + name + "`", number(b["real_time"]) + " " + b["time_unit"]]
        cells += [per_unit(k, b[k]) if k in b else "" for k in counters]
        if base:
            cells.append("%.2fx" % (b["real_time"] / base["real_time"]))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def fairshare_tables(rows):
    """fairshare_bench's <what>/<tree>/<associations> as one pivot: ms per pass (ns per
    association) by algorithm and tree; the charges (ns per job) and the memory (bytes per
    association) apart."""
    passes, charges, memory, trees = {}, [], [], []
    for b in rows:
        parts = b["run_name"].split("/")
        what, tree = parts[0], parts[1] + "/" + parts[2]
        if what == "memory":
            memory.append((tree, b))
        elif what.startswith("charge"):
            charges.append((what, tree, b))
        else:
            passes.setdefault(what, {})[tree] = b
            if tree not in trees:
                trees.append(tree)
    out = ["| pass | " + " | ".join(trees) + " |", "|---|" + "---|" * len(trees)]
    for what, by_tree in passes.items():
        cells = []
        for t in trees:
            b = by_tree.get(t)
            cells.append("%s ms (%s ns)" % (number(b["real_time"] if b["time_unit"] == "ms" else b["real_time"] / 1e6),
                                            number(b["ns_per_assoc"] * 1e9)) if b else "")
        out.append("| `" + what + "` | " + " | ".join(cells) + " |")
    text = "Per pass, ms (ns per association):\n\n" + "\n".join(out) + "\n"
    if charges:
        text += "\n| charge one job | tree | ns |\n|---|---|---|\n"
        for what, tree, b in charges:
            text += "| `%s` | %s | %s |\n" % (what, tree, number(b["real_time"]))
    if memory:
        keys = [k for k in memory[0][1] if k.endswith("_B")]
        text += "\nBytes per association:\n\n| tree | " + " | ".join(keys) + " |\n|---|" + "---|" * len(keys) + "\n"
        for tree, b in memory:
            text += "| " + tree + " | " + " | ".join(number(b[k]) for k in keys) + " |\n"
    return text


def table(path, program):
    with open(path) as f:
        data = json.load(f)
    rows = [b for b in data["benchmarks"] if b.get("aggregate_name") == "median"]
    rows.sort(key=lambda b: (b.get("family_index", 0), b.get("per_family_instance_index", 0)))
    ctx = data["context"]
    note = "%s, %d CPUs at %d MHz, %s" % (ctx.get("host_name", "?"), ctx.get("num_cpus", 0), ctx.get("mhz_per_cpu", 0),
                                        ctx.get("date", ""))
    if program == "fairshare_bench":
        return fairshare_tables(rows) + "\n(" + note + ")\n"
    # Groups: the benchmarks sharing the first part of their name (engine/, fs/, pass/...),
    # in order of appearance; a program's baseline gives ratios within its own group. In the
    # other programs, the benchmarks with a kind in their name (slurm_engine_bench's paired/)
    # make groups of their own.
    groups = []
    for b in rows:
        kinded = program in GROUPED or "/" in b["run_name"].removesuffix("/manual_time")
        key = b["run_name"].split("/")[0] if kinded else ""
        if not groups or groups[-1][0] != key:
            groups.append((key, []))
        groups[-1][1].append(b)
    base_name = BASELINES.get(program)
    text = []
    for key, members in groups:
        base = next((b for b in members if b["run_name"] == base_name), None)
        text.append(group_table(members, base))
    return "\n".join(text) + "\n(" + note + ")\n"


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    programs = argv[2:] or PROGRAMS
    if argv[1] == "--from":
        src = argv[2]
        programs = argv[3:] or PROGRAMS
        paths = {p: os.path.join(src, p + ".json") for p in programs}
    else:
        out_dir = os.path.join(argv[1], "bench-results")
        os.makedirs(out_dir, exist_ok=True)
        paths = {p: run(argv[1], p, out_dir) for p in programs}
    for p in programs:
        if os.path.exists(paths[p]):
            print("### " + p + "\n")
            print(table(paths[p], p))


if __name__ == "__main__":
    main(sys.argv)
