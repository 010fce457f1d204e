#!/usr/bin/env python3
"""Merges tuning files from several mpix_tune launches into one.

The machine's level moves from launch to launch (here by up to 45%: a slow
mode of the transport, which UCX picks per process, or a slow moment), while
inside one launch the algorithms take turns, so their ratios to each other are
far steadier than their levels. A per-number median across launches mixes the
levels of different launches and can reorder algorithms that are a few
percent apart. So a measured number of each algorithm (a fixed cost, or
T_iter at a calibrated size) is merged as the median across launches of its
ratio to the mean of every algorithm's same number in that launch, times the
median of that mean. Numbers outside the algorithms' table take the plain
median.

usage: merge_tuning.py --output OUT.json [--source TEXT] IN.json IN.json ..."""
import argparse
import json
import statistics


def is_number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def merge(values):
    """Per-number median of structurally identical documents."""
    first = values[0]
    if isinstance(first, dict):
        return {k: merge([v[k] for v in values]) for k in first}
    if isinstance(first, list):
        return [merge([v[i] for v in values]) for i in range(len(first))]
    if is_number(first):
        return statistics.median(values)
    return first


# Each setting's T_iter at the calibration: sync + messages * curve(b) with
# blocks to peers only, plus the self curve with every block (across nodes,
# on-node messages are priced by the one-node curve, the same in every launch,
# and left out).
SETTINGS = [("one_node", "node_us", "self_us"), ("one_node", "node_user_us", "self_user_us"),
            ("multi_node", "net_us", "multi_node_self_us")]


def ratio_median(numbers):
    """numbers[launch][algorithm] -> merged number per algorithm."""
    levels = [statistics.fmean(launch) for launch in numbers]
    level = statistics.median(levels)
    merged = []
    for a in range(len(numbers[0])):
        ratios = [launch[a] / lv for launch, lv in zip(numbers, levels) if lv > 0]
        merged.append(level * statistics.median(ratios) if ratios else 0.0)
    return merged


def merge_relative(tables, messages):
    """tables: one {algorithm: parameters} per launch. The fixed costs merge
    as ratios; a curve point does not: what was measured is the whole T_iter
    (the curve is T_iter minus sync, the self curve the difference of two
    T_iter), so the two T_iter merge as ratios and the curves are taken back
    out of them, reproducing the merged T_iter at every calibrated size."""
    merged = merge(tables)
    names = list(tables[0])

    def across(number):
        return [[number(launch[name]) for name in names] for launch in tables]

    for fixed in ("one_node", "multi_node"):
        for key in tables[0][names[0]][fixed]:
            for name, value in zip(names, ratio_median(across(lambda p: p[fixed][key]))):
                merged[name][fixed][key] = value
    for fixed, curve, self_curve in SETTINGS:
        for i in range(len(tables[0][names[0]][curve])):
            peers = ratio_median(across(lambda p: p[fixed]["sync_us"] + messages * p[curve][i][1]))
            full = ratio_median(across(lambda p: p[fixed]["sync_us"] + messages * p[curve][i][1] + p[self_curve][i][1]))
            for a, name in enumerate(names):
                merged[name][curve][i][1] = max(0.0, (peers[a] - merged[name][fixed]["sync_us"]) / messages)
                merged[name][self_curve][i][1] = max(0.0, full[a] - peers[a])
    return merged


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--output", required=True)
    p.add_argument("--source")
    p.add_argument("--messages", type=int,
                   help="messages per rank in the calibration's setting (default: calibration_ranks - 1, "
                        "one node or every rank its own node)")
    p.add_argument("inputs", nargs="+")
    args = p.parse_args()
    documents = [json.load(open(path)) for path in args.inputs]
    merged = merge(documents)
    messages = args.messages or documents[0]["calibration_ranks"] - 1
    merged["algorithms"] = merge_relative([d["algorithms"] for d in documents], messages)
    merged["version"] = documents[0]["version"]
    merged["calibration_ranks"] = documents[0]["calibration_ranks"]
    if args.source:
        merged["source"] = args.source
    with open(args.output, "w") as f:
        json.dump(merged, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
