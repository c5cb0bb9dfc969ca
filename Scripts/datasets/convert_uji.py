#!/usr/bin/env python3
"""UJI BLE RSS database (Mendoza-Silva et al., Zenodo 10.5281/zenodo.1618692) -> Whereabouts' formats.

    convert_uji.py RAW_DATA_DIR OUT_DIR [--zone lib|geo|both] [--source TEXT]

RAW_DATA_DIR is the database's `data` folder (UJI_BLE_DB/data): it must hold
`rss/{zone}_{rss,tms,crd,ids}.csv` and `dep/{zone}.csv`. Writes OUT_DIR/uji-lib and
OUT_DIR/uji-geo-4, -12, -20, each with venue.json, train.jsonl and test.jsonl, by the rules of
Documentation/Datasets.md (the dataset authors' own splits, ips/splitTrnTst.m).

The rss, tms, crd and ids files have no header; row i of each describes fingerprint i.
Every cell is checked: a wrong number of columns, a cell that is not a number, an RSS that is
neither 100 (not detected) nor a negative dBm value, an id whose digits name an unknown phone,
power, campaign or point, or files of different lengths stop the conversion with FILE:LINE:COLUMN
and exit status 1.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (ConversionError, check_width, parse_float, parse_int, read_rows, run, summary,  # noqa: E402
                    where, write_dataset)

# The commit of github.com/Kassiopeia14/IndoorPositioning whose UJI_BLE_DB/data the published
# conversions name as their source (Scripts/datasets.sh fetches the files from it).
DEFAULT_COMMIT = "ea387895e7301154c14438e534676b27bf1a7d5f"
NOT_DETECTED = 100
LOWEST_RSS = -150

# Digits of a fingerprint id (load/getFilterFor*.m): phone = id / 10^7, power = id / 10^6 mod 10,
# campaign = id / 10^5 mod 10, point = id / 100 mod 1000, sample = id mod 100.
LIB_PHONES = {1: "A5", 2: "BQ", 3: "S6"}
GEO_PHONES = {1: "A5"}
LIB_POWERS = {2: -12}                       # every library beacon at -12 dBm
GEO_POWERS = {1: -4, 2: -12, 3: -20}        # getFilterDefs.m: geo.powers p04, p12, p20
LIB_TRAIN_CAMPAIGN, LIB_TEST_CAMPAIGN = 2, 3            # campaigns c1 and c4 of getFilterDefs.m
LIB_TRAIN_POINTS = range(1, 49)
LIB_TEST_POINTS = range(1, 69)
LIB_OUTER_TEST_POINTS = {1, 17, 18, 34, 35, 51, 52, 68}  # splitTrnTst.m bibNoOuterTstRemove
GEO_CAMPAIGN = 1
GEO_POINTS = range(1, 69)
# splitTrnTst.m, configuration fullLimits: geoFullLimits + geoAllHorizInnerMiddle.
GEO_TRAIN_POINTS = {1, 2, 3, 4, 5, 9, 10, 14, 15, 19, 20, 24, 25, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38,
                    39, 40, 44, 45, 49, 50, 54, 55, 59, 60, 64, 65, 66, 67, 68,
                    7, 12, 17, 22, 27, 42, 47, 52, 57, 62}


def number(value):
    """A coordinate as the venue files write it: an integral value as an integer (12.00 -> 12)."""
    return int(value) if value == int(value) else value


def read_deployment(path, zone):
    beacons = []
    seen = set()
    for line, cells in read_rows(path, expect_header=["id", "x", "y"]):
        check_width(path, line, cells, 3)
        raw_id = cells[0]
        if zone == "lib":
            parse_int(path, line, 1, raw_id, "beacon id")
            beacon_id = raw_id
        else:
            digits = raw_id[1:] if raw_id[:1] in ("B", "b") else raw_id
            parse_int(path, line, 1, digits, "beacon id")
            beacon_id = f"B{int(digits)}"
        if beacon_id in seen:
            raise ConversionError(f"{where(path, line, 1)}: beacon id {raw_id!r} appears twice")
        seen.add(beacon_id)
        x = parse_float(path, line, 2, cells[1], "x")
        y = parse_float(path, line, 3, cells[2], "y")
        beacons.append({"id": beacon_id, "x": number(x), "y": number(y), "floor": 0})
    return beacons


def read_fingerprints(folder, zone, beacon_count):
    base = os.path.join(folder, "rss", zone)
    paths = {kind: f"{base}_{kind}.csv" for kind in ("rss", "tms", "crd", "ids")}
    rows = {kind: read_rows(path) for kind, path in paths.items()}
    counts = {kind: len(rows[kind]) for kind in rows}
    if len(set(counts.values())) != 1:
        listed = ", ".join(f"{os.path.basename(paths[k])} {counts[k]}" for k in counts)
        raise ConversionError(f"{base}_*.csv: the four files must have one row a fingerprint each; rows: {listed}")
    fingerprints = []
    for index in range(counts["rss"]):
        rss_line, rss_cells = rows["rss"][index]
        tms_line, tms_cells = rows["tms"][index]
        crd_line, crd_cells = rows["crd"][index]
        ids_line, ids_cells = rows["ids"][index]
        check_width(paths["rss"], rss_line, rss_cells, beacon_count, "RSS columns (one a beacon of the deployment file)")
        check_width(paths["tms"], tms_line, tms_cells, beacon_count, "time columns (one a beacon of the deployment file)")
        check_width(paths["crd"], crd_line, crd_cells, 2, "columns (x, y)")
        check_width(paths["ids"], ids_line, ids_cells, 1, "columns (the fingerprint id)")
        rss = []
        for column, cell in enumerate(rss_cells, start=1):
            value = parse_int(paths["rss"], rss_line, column, cell, "RSS")
            if value != NOT_DETECTED and not (LOWEST_RSS <= value < 0):
                raise ConversionError(
                    f"{where(paths['rss'], rss_line, column)}: RSS {cell} is neither {NOT_DETECTED} (not detected) "
                    f"nor a dBm value between {LOWEST_RSS} and -1")
            rss.append(value)
        times = []
        for column, cell in enumerate(tms_cells, start=1):
            value = parse_int(paths["tms"], tms_line, column, cell, "collection time (ns)")
            if value < 0:
                raise ConversionError(f"{where(paths['tms'], tms_line, column)}: negative collection time {cell}")
            times.append(value)
        x = parse_float(paths["crd"], crd_line, 1, crd_cells[0], "x")
        y = parse_float(paths["crd"], crd_line, 2, crd_cells[1], "y")
        fingerprint_id = parse_int(paths["ids"], ids_line, 1, ids_cells[0], "fingerprint id")
        if fingerprint_id < 0:
            raise ConversionError(f"{where(paths['ids'], ids_line, 1)}: negative fingerprint id {ids_cells[0]}")
        fingerprints.append({"src": index, "rss": rss, "times": times, "x": x, "y": y, "id": fingerprint_id,
                             "where": where(paths["ids"], ids_line, 1)})
    return fingerprints


def decode(fingerprint, phones, powers, zone):
    value = fingerprint["id"]
    phone, power = value // 10**7, value // 10**6 % 10
    campaign, point = value // 10**5 % 10, value // 100 % 1000
    if phone not in phones:
        known = ", ".join(f"{k}={v}" for k, v in phones.items())
        raise ConversionError(f"{fingerprint['where']}: id {value}: phone digit {phone} is not one of {zone}'s ({known})")
    if power not in powers:
        known = ", ".join(f"{k}={v} dBm" for k, v in powers.items())
        raise ConversionError(f"{fingerprint['where']}: id {value}: power digit {power} is not one of {zone}'s ({known})")
    return phones[phone], power, campaign, point


def timestamps(fingerprints, key):
    """t of each fingerprint: its latest collection time among the beacons it detected, in seconds.

    A fingerprint that detected nothing has no time (its times are 0): it takes the t of the
    previous fingerprint of the same phone and power setting (0.0 for the first), so that t stays
    non-decreasing per phone, as the recording format requires.
    """
    previous = {}
    result = []
    for fingerprint in fingerprints:
        group = key(fingerprint)
        detected = [time for rss, time in zip(fingerprint["rss"], fingerprint["times"]) if rss != NOT_DETECTED]
        t = max(detected) / 1e9 if detected else 0.0
        t = max(t, previous.get(group, 0.0))
        previous[group] = t
        result.append(t)
    return result


def scan(fingerprint, t, device, beacons, extra=None):
    readings = [{"beacon": beacon["id"], "rssi": rss}
                for beacon, rss in zip(beacons, fingerprint["rss"]) if rss != NOT_DETECTED]
    record = {"t": t, "device": device, "readings": readings,
              "truth": {"x": fingerprint["x"], "y": fingerprint["y"]}, "src": fingerprint["src"]}
    if extra:
        record.update(extra)
    return record


def source_text(source):
    return f"{source} (Zenodo 10.5281/zenodo.1618692, CC BY 4.0)"


def convert_lib(folder, out, source):
    beacons = read_deployment(os.path.join(folder, "dep", "lib.csv"), "lib")
    fingerprints = read_fingerprints(folder, "lib", len(beacons))
    decoded = [decode(f, LIB_PHONES, LIB_POWERS, "lib") for f in fingerprints]
    times = timestamps(fingerprints, key=lambda f: f["id"] // 10**6)
    train, test = [], []
    for fingerprint, (device, _, campaign, point), t in zip(fingerprints, decoded, times):
        if campaign == LIB_TRAIN_CAMPAIGN:
            if point not in LIB_TRAIN_POINTS:
                raise ConversionError(f"{fingerprint['where']}: id {fingerprint['id']}: point {point} is not one of "
                                      f"campaign {campaign}'s {LIB_TRAIN_POINTS.start}-{LIB_TRAIN_POINTS.stop - 1}")
            train.append(scan(fingerprint, t, device, beacons))
        elif campaign == LIB_TEST_CAMPAIGN:
            if point not in LIB_TEST_POINTS:
                raise ConversionError(f"{fingerprint['where']}: id {fingerprint['id']}: point {point} is not one of "
                                      f"campaign {campaign}'s {LIB_TEST_POINTS.start}-{LIB_TEST_POINTS.stop - 1}")
            if point not in LIB_OUTER_TEST_POINTS:
                test.append(scan(fingerprint, t, device, beacons))
        else:
            raise ConversionError(f"{fingerprint['where']}: id {fingerprint['id']}: campaign digit {campaign} is "
                                  f"neither {LIB_TRAIN_CAMPAIGN} (training) nor {LIB_TEST_CAMPAIGN} (test)")
    venue = {
        "name": "UJI library zone (Universitat Jaume I), BLE RSS DB v1.0",
        "source": source_text(source),
        "floors": [{"level": 0, "name": "library floor", "elevation": 0.0}],
        "beacons": beacons,
        "places": [],
    }
    target = os.path.join(out, "uji-lib")
    write_dataset(target, venue, train, test)
    return [summary(target, train, test)]


def convert_geo(folder, out, source):
    beacons = read_deployment(os.path.join(folder, "dep", "geo.csv"), "geo")
    fingerprints = read_fingerprints(folder, "geo", len(beacons))
    decoded = [decode(f, GEO_PHONES, GEO_POWERS, "geo") for f in fingerprints]
    times = timestamps(fingerprints, key=lambda f: f["id"] // 10**6)
    splits = {power: ([], []) for power in GEO_POWERS}
    for fingerprint, (device, power, campaign, point), t in zip(fingerprints, decoded, times):
        if campaign != GEO_CAMPAIGN:
            raise ConversionError(f"{fingerprint['where']}: id {fingerprint['id']}: campaign digit {campaign} is not "
                                  f"geo's only campaign {GEO_CAMPAIGN}")
        if point not in GEO_POINTS:
            raise ConversionError(f"{fingerprint['where']}: id {fingerprint['id']}: point {point} is not one of "
                                  f"{GEO_POINTS.start}-{GEO_POINTS.stop - 1}")
        record = scan(fingerprint, t, device, beacons, {"txPowerSetting": GEO_POWERS[power]})
        splits[power][0 if point in GEO_TRAIN_POINTS else 1].append(record)
    lines = []
    for power, (train, test) in splits.items():
        dbm = GEO_POWERS[power]
        venue = {
            "name": f"UJI Geotec lab zone (Universitat Jaume I), BLE RSS DB v1.0, beacons at {dbm} dBm",
            "source": source_text(source),
            "floors": [{"level": 0, "name": "Geotec lab", "elevation": 0.0}],
            "beacons": beacons,
            "places": [],
        }
        target = os.path.join(out, f"uji-geo{dbm}")
        write_dataset(target, venue, train, test)
        lines.append(summary(target, train, test))
    return lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("raw", help="the database's data folder (holding rss/ and dep/)")
    parser.add_argument("out", help="where uji-lib/ and uji-geo-*/ are written")
    parser.add_argument("--zone", choices=("lib", "geo", "both"), default="both")
    parser.add_argument("--source", default=f"github.com/Kassiopeia14/IndoorPositioning@{DEFAULT_COMMIT}:UJI_BLE_DB/data",
                        help="where the raw files came from, written into each venue's \"source\"")
    arguments = parser.parse_args(argv)
    if not os.path.isdir(arguments.raw):
        raise ConversionError(f"{arguments.raw}: not a folder (expected the database's data folder)")
    lines = []
    if arguments.zone in ("lib", "both"):
        lines += convert_lib(arguments.raw, arguments.out, arguments.source)
    if arguments.zone in ("geo", "both"):
        lines += convert_geo(arguments.raw, arguments.out, arguments.source)
    for line in lines:
        print(line)


if __name__ == "__main__":
    run(main)
