#!/usr/bin/env python3
"""What a stay keeps: a recording's test scans cut into visits, for two measurements that
Documentation/Accuracy.md reports on the uji-geo sets.

A visit is a run of test scans at one truth position (x, y, floor) with no gap longer than
--gap seconds (60 by default: the uji-geo sets' scans of a visit are at most 16 s apart, and a
position's two visits at least 4 minutes); a position visited twice has two visits.

    Scripts/visits.py split --train D/train.jsonl --test D/test.jsonl --out DIR
        Writes DIR/train.jsonl (the survey, then the first visit of each position, moved in
        time to after the survey and kept in order) and DIR/test.jsonl (every later visit).
        Locate the later visits with and without the first ones surveyed:
            whereabouts eval --venue D/venue.json --train DIR/train.jsonl --test DIR/test.jsonl \\
                --classifier none --algorithm posterior
            whereabouts eval --venue D/venue.json --train D/train.jsonl --test DIR/test.jsonl \\
                --classifier none --algorithm posterior

    Scripts/visits.py beacons --test D/test.jsonl [--min-readings 3]
        For each position's first two visits and each beacon heard at least --min-readings
        times in both: the difference of its mean RSSI between the visits, less the pair's
        common offset (the mean of those differences). Prints the spread of those differences,
        the spread of the common offsets, and the spread of the same beacons' readings about
        their mean within each of the two visits (all root mean squares, dB).

Only the standard library; reads JSON Lines in the recording format (Documentation/FORMATS.md).
"""

import argparse
import json
import math
import os
import sys


def read_scans(path):
    """The scans of a JSON Lines recording, each a dict; exits with a message on a bad line."""
    scans = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                scan = json.loads(line)
            except json.JSONDecodeError as error:
                sys.exit(f"{path}:{number}: not JSON ({error.msg})")
            if not isinstance(scan, dict) or not isinstance(scan.get("t"), (int, float)):
                sys.exit(f"{path}:{number}: a scan needs a number \"t\"")
            scans.append(scan)
    return scans


def position(scan):
    """The scan's truth position as a key, or None without one."""
    truth = scan.get("truth")
    if not isinstance(truth, dict) or "x" not in truth or "y" not in truth:
        return None
    return (truth["x"], truth["y"], truth.get("floor"))


def visits(scans, gap):
    """The scans with a truth cut into visits, in time order: (position, [scans])."""
    cut = []
    for scan in sorted((s for s in scans if position(s) is not None), key=lambda s: s["t"]):
        where = position(scan)
        if cut and cut[-1][0] == where and scan["t"] - cut[-1][1][-1]["t"] <= gap:
            cut[-1][1].append(scan)
        else:
            cut.append((where, [scan]))
    return cut


def split(arguments):
    survey = read_scans(arguments.train)
    cut = visits(read_scans(arguments.test), arguments.gap)
    seen, first, later = set(), [], []
    for where, scans in cut:
        (later if where in seen else first).append(scans)
        seen.add(where)
    if not survey:
        sys.exit(f"{arguments.train}: no scans")
    # The first visits after the survey, 60 s apart, each keeping its own spacing.
    start = max(s["t"] for s in survey) + 60
    moved = []
    for scans in first:
        shift = start - scans[0]["t"]
        moved += [dict(scan, t=round(scan["t"] + shift, 6)) for scan in scans]
        start = moved[-1]["t"] + 60
    os.makedirs(arguments.out, exist_ok=True)
    with open(os.path.join(arguments.out, "train.jsonl"), "w", encoding="utf-8") as handle:
        for scan in sorted(survey, key=lambda s: s["t"]) + moved:
            handle.write(json.dumps(scan, separators=(",", ":")) + "\n")
    with open(os.path.join(arguments.out, "test.jsonl"), "w", encoding="utf-8") as handle:
        for scans in later:
            for scan in scans:
                handle.write(json.dumps(scan, separators=(",", ":")) + "\n")
    print(f"{len(cut)} visits of {len(seen)} positions: {len(first)} first visits "
          f"({len(moved)} scans) added to the survey's {len(survey)}, "
          f"{sum(len(s) for s in later)} scans of {len(later)} later visits to locate, in {arguments.out}")


def beacon_means(scans, minimum):
    """Each beacon heard at least `minimum` times in the scans: (mean RSSI, readings)."""
    readings = {}
    for scan in scans:
        for reading in scan.get("readings") or []:
            rssi = reading.get("rssi")
            if isinstance(rssi, (int, float)) and math.isfinite(rssi):
                readings.setdefault(reading.get("beacon"), []).append(rssi)
    return {beacon: (sum(values) / len(values), values)
            for beacon, values in readings.items() if len(values) >= minimum}


def rms(values):
    return math.sqrt(sum(v * v for v in values) / len(values)) if values else float("nan")


def beacons(arguments):
    by_position = {}
    for where, scans in visits(read_scans(arguments.test), arguments.gap):
        by_position.setdefault(where, []).append(scans)
    residuals, offsets, scatter = [], [], []
    pairs = 0
    for stays in by_position.values():
        if len(stays) < 2:
            continue
        means = [beacon_means(stay, arguments.min_readings) for stay in stays[:2]]
        shared = sorted(set(means[0]) & set(means[1]))
        if not shared:
            continue
        for visit in means:
            for beacon in shared:
                mean, values = visit[beacon]
                scatter += [value - mean for value in values]
        differences = [means[1][b][0] - means[0][b][0] for b in shared]
        offset = sum(differences) / len(differences)
        offsets.append(offset)
        residuals += [d - offset for d in differences]
        pairs += 1
    if not pairs:
        sys.exit(f"{arguments.test}: no position has two visits with a beacon heard "
                 f"{arguments.min_readings} times in both")
    mean_offset = sum(offsets) / len(offsets)
    print(f"{pairs} pairs of visits, {len(residuals)} beacon differences")
    print(f"between visits, less the pair's common offset: {rms(residuals):.1f} dB")
    print(f"the common offsets: {rms([o - mean_offset for o in offsets]):.1f} dB (mean {mean_offset:+.1f})")
    print(f"within a visit, about the beacon's mean there: {rms(scatter):.1f} dB")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog="\n\n".join(__doc__.split("\n\n")[1:]))
    parser.add_argument("--gap", type=float, default=60,
                        help="the longest gap (seconds) within a visit (default 60)")
    commands = parser.add_subparsers(dest="command", required=True)
    cut = commands.add_parser("split", help="the survey plus each position's first visit; the later visits")
    cut.add_argument("--train", required=True)
    cut.add_argument("--test", required=True)
    cut.add_argument("--out", required=True)
    cut.set_defaults(run=split)
    compare = commands.add_parser("beacons", help="how a beacon's mean RSSI differs between visits")
    compare.add_argument("--test", required=True)
    compare.add_argument("--min-readings", type=int, default=3)
    compare.set_defaults(run=beacons)
    arguments = parser.parse_args()
    if arguments.gap <= 0:
        parser.error("--gap must be positive")
    arguments.run(arguments)


if __name__ == "__main__":
    main()
