#!/usr/bin/env python3
"""Merges tuning files from several mpix_tune launches into one: every number
becomes the median across the launches (curves point by point). One launch
can land in a slow mode of the transport (UCX picks per process) or a slow
moment of the machine; the median of a few is what the built-in defaults use.

usage: merge_tuning.py --output OUT.json [--source TEXT] IN.json IN.json ..."""
import argparse
import json
import statistics


def merge(values):
    first = values[0]
    if isinstance(first, dict):
        return {k: merge([v[k] for v in values]) for k in first}
    if isinstance(first, list):
        return [merge([v[i] for v in values]) for i in range(len(first))]
    if isinstance(first, (int, float)) and not isinstance(first, bool):
        return statistics.median(values)
    return first


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--output", required=True)
    p.add_argument("--source")
    p.add_argument("inputs", nargs="+")
    args = p.parse_args()
    documents = [json.load(open(path)) for path in args.inputs]
    merged = merge(documents)
    merged["version"] = documents[0]["version"]
    merged["calibration_ranks"] = documents[0]["calibration_ranks"]
    if args.source:
        merged["source"] = args.source
    with open(args.output, "w") as f:
        json.dump(merged, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
