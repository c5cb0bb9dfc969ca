"""Tests of visits.py on small made-up recordings, each figure worked out by hand.

    python3 -m unittest discover -s Scripts -p visits_test.py
"""

import argparse
import contextlib
import importlib.util
import io
import json
import os
import tempfile
import unittest

_SPEC = importlib.util.spec_from_file_location("visits", os.path.join(os.path.dirname(__file__), "visits.py"))
visits = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(visits)


def scan(t, x, y, readings):
    return {"t": t, "device": "phone", "readings": [{"beacon": b, "rssi": r} for b, r in readings],
            "truth": {"x": x, "y": y}}


def write(folder, name, scans):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as handle:
        for item in scans:
            handle.write(json.dumps(item) + "\n")
    return path


class VisitsTests(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.mkdtemp()

    def test_a_visit_ends_where_the_position_changes_or_a_gap_is_too_long(self):
        scans = [scan(0, 0, 0, []), scan(1, 0, 0, []), scan(2, 5, 5, []), scan(3, 0, 0, []),
                 scan(70, 0, 0, []), scan(71, 0, 0, [])]
        cut = visits.visits(scans, gap=60)
        self.assertEqual([[s["t"] for s in stay] for _, stay in cut], [[0, 1], [2], [3], [70, 71]])
        self.assertEqual([where for where, _ in cut], [(0, 0, None), (5, 5, None), (0, 0, None), (0, 0, None)])

    def test_split_surveys_each_first_visit_after_the_survey_and_keeps_the_later_ones(self):
        train = write(self.folder, "train.jsonl", [scan(5, 1, 1, []), scan(0, 2, 2, [])])
        test = write(self.folder, "test.jsonl", [
            scan(10, 0, 0, []), scan(11.5, 0, 0, []), scan(20, 5, 5, []),
            scan(200, 0, 0, []), scan(201, 0, 0, []), scan(300, 0, 0, [])])
        out = os.path.join(self.folder, "split")
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            visits.split(argparse.Namespace(train=train, test=test, out=out, gap=60))
        surveyed = visits.read_scans(os.path.join(out, "train.jsonl"))
        located = visits.read_scans(os.path.join(out, "test.jsonl"))
        # The survey in time order, then (0, 0)'s first visit 60 s after it with its own
        # spacing, then (5, 5)'s 60 s after that.
        self.assertEqual([s["t"] for s in surveyed], [0, 5, 65, 66.5, 126.5])
        self.assertEqual([visits.position(s) for s in surveyed[2:]], [(0, 0, None), (0, 0, None), (5, 5, None)])
        self.assertEqual([s["t"] for s in located], [200, 201, 300])
        self.assertIn("4 visits of 2 positions", printed.getvalue())

    def test_beacons_reports_the_spreads_worked_out_by_hand(self):
        # (0, 0): b1's mean −62 then −52 (+10), b2's −70 both times (0): offset 5, residuals ±5.
        # (9, 9): b1 −60 then −56, b3 −80 then −76: offset 4, residuals 0. (5, 5): one visit.
        # Offsets 5 and 4: ±0.5 about their mean. Within a visit: b1 at (0, 0) is ±2 about its
        # mean (2, 0, −2 twice), every other reading on its mean: √(16 / 24).
        test = write(self.folder, "test.jsonl", [
            scan(0, 0, 0, [("b1", -60), ("b2", -70)]), scan(1, 0, 0, [("b1", -62), ("b2", -70)]),
            scan(2, 0, 0, [("b1", -64), ("b2", -70)]),
            scan(10, 5, 5, [("b1", -60)]), scan(11, 5, 5, [("b1", -60)]), scan(12, 5, 5, [("b1", -60)]),
            scan(100, 0, 0, [("b1", -50), ("b2", -70)]), scan(101, 0, 0, [("b1", -52), ("b2", -70)]),
            scan(102, 0, 0, [("b1", -54), ("b2", -70)]),
            scan(200, 9, 9, [("b1", -60), ("b3", -80)]), scan(201, 9, 9, [("b1", -60), ("b3", -80)]),
            scan(202, 9, 9, [("b1", -60), ("b3", -80)]),
            scan(300, 9, 9, [("b1", -56), ("b3", -76)]), scan(301, 9, 9, [("b1", -56), ("b3", -76)]),
            scan(302, 9, 9, [("b1", -56), ("b3", -76)]),
        ])
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            visits.beacons(argparse.Namespace(test=test, gap=60, min_readings=3))
        lines = printed.getvalue().splitlines()
        self.assertEqual(lines[0], "2 pairs of visits, 4 beacon differences")
        self.assertEqual(lines[1], "between visits, less the pair's common offset: 3.5 dB")  # √(50 / 4)
        self.assertEqual(lines[2], "the common offsets: 0.5 dB (mean +4.5)")
        self.assertEqual(lines[3], "within a visit, about the beacon's mean there: 0.8 dB")  # √(16 / 24)

    def test_a_beacon_heard_too_few_times_in_a_visit_is_not_compared(self):
        test = write(self.folder, "test.jsonl", [
            scan(0, 0, 0, [("b1", -60)]), scan(1, 0, 0, [("b1", -60)]),
            scan(100, 0, 0, [("b1", -50)]), scan(101, 0, 0, [("b1", -50)])])
        with self.assertRaises(SystemExit) as refused:
            visits.beacons(argparse.Namespace(test=test, gap=60, min_readings=3))
        self.assertIn("no position has two visits", str(refused.exception.code))

    def test_a_line_that_is_not_json_is_named(self):
        path = os.path.join(self.folder, "bad.jsonl")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(json.dumps(scan(0, 0, 0, [])) + "\n{not json\n")
        with self.assertRaises(SystemExit) as refused:
            visits.read_scans(path)
        self.assertIn("bad.jsonl:2: not JSON", str(refused.exception.code))


if __name__ == "__main__":
    unittest.main()
