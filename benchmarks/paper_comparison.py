#!/usr/bin/env python3
"""paper_comparison.py POINTS.jsonl...: our simulated curves of the
persistent-alltoallv-rma paper's two experiments beside its published
numbers (shared/papers/persistent-alltoallv-rma.txt, section 5), as
markdown on standard output.

The experiments (run by scripts/benchmark.sh scale on platforms/dane.json):
  size sweep  Alltoallv, 8 nodes x 28 ranks (224), block sizes per peer;
              the paper: native wins up to 8 KiB, fence from 32 KiB.
  scaling     Alltoallv, 28 to 448 ranks (1 to 16 nodes of 28) at one
              block size; the paper, at 2 MiB: fence, then native, then
              lock at 224 and 448 ranks.
Our `lock` is the library's lock_all variant (one epoch for the request's
life, barriers at Start and Wait), not the paper's lock/unlock per target
and iteration."""
import json
import sys

# The paper's numbers, as its text gives them (seconds per call).
PAPER_SWEEP_224 = {  # block bytes: {algorithm: seconds}
    32768: {"native": 0.0588, "fence": 0.0410, "lock": 0.0588 - 0.0148},
    1048576: {"native": 0.158 / 0.276, "fence": 0.158 / 0.276 - 0.158, "lock": 0.158 / 0.276 - 0.100},
    2097152: {"native": 0.637 / 0.443, "fence": 0.637 / 0.443 - 0.637, "lock": 0.637 / 0.443 - 0.550},
}
PAPER_SWEEP_NOTE = ("up to 8,192 B native MPI_Alltoallv is fastest; from 32,768 B fence-persistent is "
                    "(131,072 B: fence 27.1% and lock 14.7% faster than native)")
PAPER_SCALING_2MIB = {  # ranks: {algorithm: seconds}
    28: {"native": 0.074, "fence": 0.0255},
    224: {"native": 0.794, "fence": 0.700, "lock": 1.53},
    448: {"native": 2.49, "fence": 1.54, "lock": 3.52},
}


def load(paths):
    points = []
    for path in paths:
        with open(path) as f:
            points += [json.loads(line) for line in f if line.strip()]
    return [p for p in points if p.get("machine") == "dane" and p["collective"] == "alltoallv"
            and "refused" not in p and p.get("wrong", 0) == 0]


def ours(points, ranks, block):
    """algorithm -> simulated seconds per iteration (MPI's own call: the
    faster selector), at ranks and block."""
    out = {}
    for p in points:
        if p["ranks"] != ranks or p["block_bytes"] != block:
            continue
        name = "mpi" if p["algorithm"] == "mpi" else p["algorithm"]
        if name == "auto":
            name = "auto (%s)" % p["ran"]
        out[name] = min(out.get(name, float("inf")), p["iteration_s"])
    return out


def order(times, names):
    present = [n for n in names if n in times]
    return " < ".join(sorted(present, key=lambda n: times[n]))


def main():
    points = load(sys.argv[1:])
    print("### The paper's size sweep, 224 ranks (8 nodes x 28)\n")
    print("Paper: %s.\n" % PAPER_SWEEP_NOTE)
    print("| block | ours: native | fence | lock | mpi | auto | our winner | paper: native | fence | lock |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for block in sorted({p["block_bytes"] for p in points if p["ranks"] == 224}):
        t = ours(points, 224, block)
        auto = next((k for k in t if k.startswith("auto")), None)
        paper = PAPER_SWEEP_224.get(block, {})
        cells = ["%.3f ms" % (t[k] * 1e3) if k in t else "-" for k in ("native", "fence", "lock", "mpi")]
        winner = min((k for k in ("native", "fence", "lock") if k in t), key=lambda k: t[k], default="-")
        print("| %d | %s | %s | %s | %s | %s | %s | %s |" % (
            block, " | ".join(cells), "%s %.3f ms" % (auto, t[auto] * 1e3) if auto else "-", winner,
            " | ".join("%.4f s" % paper[k] if k in paper else "-" for k in ("native", "fence", "lock")), ""))
    print("\n### The paper's scaling (1 to 16 nodes of 28)\n")
    blocks = sorted({p["block_bytes"] for p in points if p["ranks"] in (28, 56, 112, 448)})
    for block in blocks:
        print("Ours at %d B per peer; the paper's at 2 MiB.\n" % block)
        print("| ranks | ours: native | fence | lock | mpi | our order | paper: native | fence | lock | paper's order |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for ranks in sorted({p["ranks"] for p in points if p["block_bytes"] == block}):
            t = ours(points, ranks, block)
            paper = PAPER_SCALING_2MIB.get(ranks, {})
            print("| %d | %s | %s | %s | %s |" % (
                ranks, " | ".join("%.3f ms" % (t[k] * 1e3) if k in t else "-" for k in ("native", "fence", "lock", "mpi")),
                order(t, ("native", "fence", "lock")),
                " | ".join("%.3f s" % paper[k] if k in paper else "-" for k in ("native", "fence", "lock")),
                order(paper, ("native", "fence", "lock")) if paper else "-"))
        print()


if __name__ == "__main__":
    main()
