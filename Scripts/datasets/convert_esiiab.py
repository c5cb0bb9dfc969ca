#!/usr/bin/env python3
"""ESIIAB BLE RSSI indoor localization dataset (UCLM) -> Whereabouts' formats.

    convert_esiiab.py TX0_CSV BEACON_METADATA_CSV OUT_DIR [--sectors SECTOR_METADATA_CSV]

TX0_CSV is the repository's data/Tx0.csv (header B1,B2,B3,B4,B5,B6,Sector; one row a sample,
sectors coded 1-28), BEACON_METADATA_CSV its metadata/beacon_metadata.csv (";"-separated, the
floor of each beacon). Writes OUT_DIR/esiiab/{venue.json,train.jsonl,test.jsonl} by the rules of
Documentation/Datasets.md: sectors 1-7 -> places 1A-7A on floor 1, 8-28 -> 1B-21B on floor 0;
in each sector the first 70 rows in file order train and the other 30 test.

Checked: the header, seven cells a row, integer negative RSSI, sector codes 1-28, every sector
with the same number of rows (100), the beacons of the metadata file matching the CSV's columns
and, with --sectors, the sector labels and floors of metadata/sector_metadata.csv. Anything else
stops the conversion with FILE:LINE:COLUMN and exit status 1.
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from common import (ConversionError, check_width, parse_int, read_rows, run, summary, where,  # noqa: E402
                    write_dataset)

# The commit of github.com/manwestc/ble-rssi-indoor-localization-dataset the published conversion
# names as its source (Scripts/datasets.sh fetches the files from it).
DEFAULT_COMMIT = "b38a9a4a53a01f52136f4e9b29b5045f61655a06"
BEACONS = ["B1", "B2", "B3", "B4", "B5", "B6"]
SECTORS = 28
FIRST_FLOOR_SECTORS = 7          # codes 1-7 are 1A-7A on the first floor, 8-28 are 1B-21B on the ground floor
FLOOR_LEVELS = {"ground_floor": 0, "first_floor": 1}
# The one receiver of the recordings (the dataset's files do not name it; this is the name the
# published conversion gives it).
DEVICE = "Xiaomi Mi 9T Pro"
TX_POWER_SETTING = 0             # Tx0.csv: beacons at 0 dBm
ROWS_PER_SECTOR = 100
TRAIN_ROWS_PER_SECTOR = 70
LOWEST_RSS = -150


def place(code):
    """Sector code (1-28) -> (place id, floor level)."""
    if code <= FIRST_FLOOR_SECTORS:
        return f"{code}A", 1
    return f"{code - FIRST_FLOOR_SECTORS}B", 0


def read_beacon_floors(path):
    floors = {}
    for line, cells in read_rows(path, separator=";",
                                 expect_header=["beacon_id", "model", "technology", "floor", "description"]):
        check_width(path, line, cells, 5, "\";\"-separated cells")
        beacon, floor = cells[0], cells[3]
        if beacon not in BEACONS:
            raise ConversionError(f"{where(path, line, 1)}: beacon {beacon!r} is not a column of Tx0.csv ({', '.join(BEACONS)})")
        if beacon in floors:
            raise ConversionError(f"{where(path, line, 1)}: beacon {beacon!r} appears twice")
        if floor not in FLOOR_LEVELS:
            raise ConversionError(f"{where(path, line, 4)}: floor {floor!r} is neither {' nor '.join(FLOOR_LEVELS)}")
        floors[beacon] = FLOOR_LEVELS[floor]
    missing = [beacon for beacon in BEACONS if beacon not in floors]
    if missing:
        raise ConversionError(f"{path}: no floor for beacon {', '.join(missing)}")
    return floors


def check_sectors(path):
    """The sector metadata must list exactly the places the sector codes map to, on their floors."""
    expected = [place(code) for code in range(1, SECTORS + 1)]
    rows = read_rows(path, separator=";", expect_header=["sector", "floor", "description"])
    listed = []
    for line, cells in rows:
        check_width(path, line, cells, 3, "\";\"-separated cells")
        if cells[1] not in FLOOR_LEVELS:
            raise ConversionError(f"{where(path, line, 2)}: floor {cells[1]!r} is neither {' nor '.join(FLOOR_LEVELS)}")
        listed.append((cells[0], FLOOR_LEVELS[cells[1]]))
    if sorted(listed) != sorted(expected):
        raise ConversionError(f"{path}: sectors {listed} do not match codes 1-{SECTORS} -> {expected}")


def read_samples(path):
    samples = []
    for line, cells in read_rows(path, expect_header=BEACONS + ["Sector"]):
        check_width(path, line, cells, len(BEACONS) + 1, "columns (B1-B6, Sector)")
        rss = []
        for column, cell in enumerate(cells[:-1], start=1):
            value = parse_int(path, line, column, cell, "RSSI")
            if not (LOWEST_RSS <= value < 0):
                raise ConversionError(f"{where(path, line, column)}: RSSI {cell} is not a dBm value between "
                                      f"{LOWEST_RSS} and -1 (this file has no missing-value code)")
            rss.append(value)
        sector = parse_int(path, line, len(cells), cells[-1], "sector")
        if not 1 <= sector <= SECTORS:
            raise ConversionError(f"{where(path, line, len(cells))}: sector {cells[-1]} is not a code 1-{SECTORS}")
        samples.append((line, rss, sector))
    return samples


def convert(tx0, beacon_metadata, out, sectors=None, source=None,
            rows_per_sector=ROWS_PER_SECTOR, train_rows=TRAIN_ROWS_PER_SECTOR):
    floors = read_beacon_floors(beacon_metadata)
    if sectors:
        check_sectors(sectors)
    samples = read_samples(tx0)
    counts = {code: 0 for code in range(1, SECTORS + 1)}
    for _, _, sector in samples:
        counts[sector] += 1
    wrong = {code: count for code, count in counts.items() if count != rows_per_sector}
    if wrong:
        listed = ", ".join(f"sector {code}: {count}" for code, count in wrong.items())
        raise ConversionError(f"{tx0}: every sector must have {rows_per_sector} rows; {listed}")
    train, test = [], []
    seen = {code: 0 for code in counts}
    for index, (_, rss, sector) in enumerate(samples):
        label, floor = place(sector)
        record = {"t": float(index), "device": DEVICE,
                  "readings": [{"beacon": beacon, "rssi": value} for beacon, value in zip(BEACONS, rss)],
                  "truth": {"place": label, "floor": floor}, "txPowerSetting": TX_POWER_SETTING, "src": index}
        (train if seen[sector] < train_rows else test).append(record)
        seen[sector] += 1
    venue = {
        "name": "ESIIAB (UCLM Albacete) BLE sectors, Tx 0 dBm -- no coordinates known (places and beacons have no x/y)",
        "source": f"{source or 'github.com/manwestc/ble-rssi-indoor-localization-dataset@' + DEFAULT_COMMIT} "
                  "(LICENSE file Apache-2.0; README badge CC-BY-4.0)",
        "note": "Beacons are MOKO H2 at ~6 m height (technical report); positions unknown, so beacons and places "
                "carry no x/y. Places are label-only sectors (FORMATS has no label-only place).",
        "floors": [{"level": 0, "name": "ground floor (sectors 1B-21B)"},
                   {"level": 1, "name": "first floor (sectors 1A-7A)"}],
        "beacons": [{"id": beacon, "floor": floors[beacon]} for beacon in BEACONS],
        "places": [{"id": label, "floor": floor} for label, floor in map(place, range(1, SECTORS + 1))],
    }
    target = os.path.join(out, "esiiab")
    write_dataset(target, venue, train, test)
    return summary(target, train, test)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tx0", help="data/Tx0.csv")
    parser.add_argument("beacon_metadata", help="metadata/beacon_metadata.csv")
    parser.add_argument("out", help="where esiiab/ is written")
    parser.add_argument("--sectors", help="metadata/sector_metadata.csv, checked against the sector codes")
    parser.add_argument("--source", help="where the raw files came from, written into the venue's \"source\"")
    parser.add_argument("--rows-per-sector", type=int, default=ROWS_PER_SECTOR, help=argparse.SUPPRESS)
    parser.add_argument("--train-rows", type=int, default=TRAIN_ROWS_PER_SECTOR, help=argparse.SUPPRESS)
    arguments = parser.parse_args(argv)
    print(convert(arguments.tx0, arguments.beacon_metadata, arguments.out, arguments.sectors, arguments.source,
                  arguments.rows_per_sector, arguments.train_rows))


if __name__ == "__main__":
    run(main)
