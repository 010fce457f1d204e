"""scripts/merge_tuning.py: merging launches keeps the algorithms' order.

usage: python3 test_merge_tuning.py SOURCE_DIR"""
import copy
import importlib.util
import json
import os
import sys
import unittest

SOURCE_DIR = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
spec = importlib.util.spec_from_file_location("merge_tuning", os.path.join(SOURCE_DIR, "scripts", "merge_tuning.py"))
merge_tuning = importlib.util.module_from_spec(spec)
spec.loader.exec_module(merge_tuning)

with open(os.path.join(SOURCE_DIR, "selector", "tuning_defaults.json")) as f:
    DEFAULTS = json.load(f)["algorithms"]


def leaves(node, path=()):
    """(path, number) of every number under node."""
    if isinstance(node, dict):
        for key, child in node.items():
            yield from leaves(child, path + (key,))
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from leaves(child, path + (index,))
    else:
        yield path, node


def launch(split, level):
    """Two algorithms at one calibrated size (the first point of every curve):
    'slow' takes 4 + 10 + 6 = 20 us (sync, curve, self block), 'fast' 19 split
    as given; every number scaled by the launch's level."""
    table = {name: copy.deepcopy(DEFAULTS["pscw"]) for name in ("fast", "slow")}
    shares = {"fast": split, "slow": (4.0, 10.0, 6.0)}
    for name, (sync, curve, self_block) in shares.items():
        for fixed, curve_key, self_key in merge_tuning.SETTINGS:
            table[name][fixed]["sync_us"] = sync * level
            table[name][curve_key][0][1] = curve * level
            table[name][self_key][0][1] = self_block * level
    return table


def totals(parameters, fixed, curve_key, self_key):
    """T_iter with blocks to peers only, and with every block (one message)."""
    peers = parameters[fixed]["sync_us"] + parameters[curve_key][0][1]
    return peers, peers + parameters[self_key][0][1]


class MergeTuning(unittest.TestCase):
    def test_identical_launches_reproduce_the_file(self):
        merged = merge_tuning.merge_relative([DEFAULTS, DEFAULTS, DEFAULTS], 1)
        for name, parameters in DEFAULTS.items():
            got = dict(leaves(merged[name]))
            for path, number in leaves(parameters):
                self.assertAlmostEqual(got[path], number, delta=1e-9 * max(1.0, abs(number)), msg=f"{name} {path}")

    def test_launch_ratios_survive_levels_and_splits(self):
        # In every launch 'fast' takes 0.95 of 'slow', but its T_iter splits
        # differently between sync, curve and self block, and the machine's
        # level moves by 40%: a per-number median would price 'fast' at
        # 2.8 + 10 + 9 = 21.8 against 20, the wrong order.
        launches = [launch((0.0, 10.0, 9.0), 1.0), launch((2.0, 5.0, 12.0), 1.4), launch((4.5, 14.5, 0.0), 1.0)]
        merged = merge_tuning.merge_relative(launches, 1)
        for setting in merge_tuning.SETTINGS:
            fast_peers, fast_all = totals(merged["fast"], *setting)
            slow_peers, slow_all = totals(merged["slow"], *setting)
            self.assertAlmostEqual(fast_all / slow_all, 0.95, delta=1e-9, msg=str(setting))
            self.assertLess(fast_peers, slow_peers, msg=str(setting))
            self.assertAlmostEqual(slow_all, 20.0, delta=1e-9, msg=str(setting))


if __name__ == "__main__":
    unittest.main()
