"""Shared pieces of the dataset converters: strict CSV reading and the output writers.

Every input error is raised as ConversionError with the file, the 1-based line and, where it
applies, the 1-based column, so that a wrong or damaged download is named rather than converted.
"""

import json
import os
import sys


class ConversionError(Exception):
    """An input file that does not have the shape the converter expects."""


def where(path, line, column=None):
    return f"{path}:{line}" + (f":{column}" if column is not None else "")


def read_rows(path, separator=",", expect_header=None):
    """The rows of a CSV file as lists of stripped cells, with their 1-based line numbers.

    No quoting is expected in these files, so a quote is an error like any other surprise.
    Blank lines are allowed only at the end. With expect_header, the first line must be exactly
    that list of names (the header row is not returned).
    """
    try:
        with open(path, "r", encoding="utf-8-sig", newline="") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise ConversionError(f"{path}: file not found") from None
    except UnicodeDecodeError as error:
        raise ConversionError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    while lines and lines[-1].strip() == "":
        lines.pop()
    rows = []
    for index, line in enumerate(lines):
        number = index + 1
        if line.strip() == "":
            raise ConversionError(f"{where(path, number)}: empty line inside the file")
        if '"' in line:
            raise ConversionError(f"{where(path, number)}: quoted cells are not expected in this file")
        rows.append((number, [cell.strip() for cell in line.split(separator)]))
    if expect_header is not None:
        if not rows:
            raise ConversionError(f"{path}: empty file, expected the header {separator.join(expect_header)}")
        number, header = rows[0]
        if header != list(expect_header):
            raise ConversionError(
                f"{where(path, number)}: header is {separator.join(header)!r}, "
                f"expected {separator.join(expect_header)!r}")
        rows = rows[1:]
    if not rows:
        raise ConversionError(f"{path}: no data rows")
    return rows


def check_width(path, number, cells, width, what="columns"):
    if len(cells) != width:
        raise ConversionError(f"{where(path, number)}: {len(cells)} {what}, expected {width}")


def parse_int(path, number, column, cell, what):
    """An integer cell; also accepts an integral number written as a float ("-57.0", "1.22e7")."""
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        value = float(cell)
    except ValueError:
        raise ConversionError(f"{where(path, number, column)}: {what} {cell!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")) or value != int(value):
        raise ConversionError(f"{where(path, number, column)}: {what} {cell!r} is not an integer")
    return int(value)


def parse_float(path, number, column, cell, what):
    try:
        value = float(cell)
    except ValueError:
        raise ConversionError(f"{where(path, number, column)}: {what} {cell!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ConversionError(f"{where(path, number, column)}: {what} {cell!r} is not finite")
    return value


def scan_line(scan):
    """One recording line, compact, keys in the order given (as the published files have them)."""
    return json.dumps(scan, separators=(",", ":"), ensure_ascii=False)


def write_dataset(folder, venue, train, test):
    """Writes venue.json, train.jsonl and test.jsonl into folder (created if missing)."""
    os.makedirs(folder, exist_ok=True)
    files = {
        "venue.json": json.dumps(venue, indent=1, ensure_ascii=False) + "\n",
        "train.jsonl": "".join(scan_line(scan) + "\n" for scan in train),
        "test.jsonl": "".join(scan_line(scan) + "\n" for scan in test),
    }
    for name, text in files.items():
        path = os.path.join(folder, name)
        temporary = path + ".partial"
        with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(temporary, path)


def summary(folder, train, test):
    def readings(scans):
        return sum(len(scan["readings"]) for scan in scans)
    return (f"{folder}: train {len(train)} scans ({readings(train)} readings), "
            f"test {len(test)} scans ({readings(test)} readings)")


def run(main):
    """Runs a converter's main, turning a ConversionError into one line on stderr and exit 1."""
    try:
        main(sys.argv[1:])
    except ConversionError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(1)
