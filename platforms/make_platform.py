#!/usr/bin/env python3
"""make_platform.py MACHINE NODES OUTDIR [--ranks-per-node K]

Writes a SimGrid platform of NODES nodes of MACHINE (platforms/MACHINE.json)
and the hostfile that places K ranks on each (the machine's ranks_per_node
unless given): OUTDIR/MACHINE_NODESxK.xml and OUTDIR/MACHINE_NODESxK.hosts.
Prints the two paths.

A machine file gives, per node, what the model uses:
  ranks_per_node    ranks placed on each node (its cores, or what a study ran)
  network_bw, network_lat   each node's link to its leaf switch, and every
                    switch link of the fat tree (full bisection): bandwidth
                    and latency as SimGrid writes them ("12.5GBps", "1us")
  node_bw, node_lat what a message between two ranks of one node costs:
                    SimGrid's loopback link, which every such message
                    crosses at this bandwidth on its own (a fat pipe: the
                    node's memory bandwidth is not shared between them)
  leaf_size         nodes under one leaf switch (a two-level fat tree above
                    that many nodes)
  speed             the host speed; smpirun's smpi/host-speed is set to the
                    same, so a rank's computation between MPI calls counts
                    as long as it took on the simulating machine
  source            where the numbers come from
"""
import argparse
import json
import os
import sys


def fat_tree(nodes, leaf_size):
    """SimGrid's FAT_TREE topo_parameters for nodes hosts, full bisection."""
    if nodes <= leaf_size:
        return "1;%d;1;1" % nodes
    if nodes % leaf_size:
        sys.exit("make_platform.py: %d nodes are not whole leaves of %d" % (nodes, leaf_size))
    leaves = nodes // leaf_size
    # Each leaf has leaf_size links up, one to each top switch.
    return "2;%d,%d;1,%d;1,1" % (leaf_size, leaves, leaf_size)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("machine")
    parser.add_argument("nodes", type=int)
    parser.add_argument("outdir")
    parser.add_argument("--ranks-per-node", type=int)
    args = parser.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, args.machine + ".json")) as f:
        machine = json.load(f)
    ranks = args.ranks_per_node or machine["ranks_per_node"]
    name = "%s_%dx%d" % (args.machine, args.nodes, ranks)
    os.makedirs(args.outdir, exist_ok=True)
    xml = os.path.join(args.outdir, name + ".xml")
    hosts = os.path.join(args.outdir, name + ".hosts")
    with open(xml, "w") as f:
        f.write("""<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- %s: %d nodes of %s (platforms/%s.json, written by platforms/make_platform.py).
     %s -->
<platform version="4.1">
  <cluster id="%s" prefix="node-" suffix="" radical="0-%d" speed="%s" core="%d"
           bw="%s" lat="%s" sharing_policy="SPLITDUPLEX"
           loopback_bw="%s" loopback_lat="%s"
           topology="FAT_TREE" topo_parameters="%s"/>
</platform>
""" % (name, args.nodes, args.machine, args.machine, machine["source"].replace("--", "-"), name,
            args.nodes - 1, machine["speed"], ranks, machine["network_bw"], machine["network_lat"],
            machine["node_bw"], machine["node_lat"], fat_tree(args.nodes, machine["leaf_size"])))
    with open(hosts, "w") as f:
        for n in range(args.nodes):
            f.write("node-%d:%d\n" % (n, ranks))
    print(xml)
    print(hosts)


if __name__ == "__main__":
    main()
