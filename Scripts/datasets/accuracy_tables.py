#!/usr/bin/env python3
"""Prints the accuracy tables of the README from the reports Scripts/accuracy.sh collects.

    accuracy_tables.py REPORTS_DIR

REPORTS_DIR holds, for each UJI dataset D: D.eval.json (eval --algorithm all --json, with
--train; D.eval.err its standard error), D.stop-and-go.json (the same, one algorithm, with
--rssi-filter none --tracking stop-and-go), D.untrained.json (no --train; .err its note),
D.untrained-kalman.json (no --train, --rssi-filter kalman --tracking none), D.calibrate.txt;
and esiiab.eval.json (--classifier all) and esiiab.train.err (what `train` chose).
"""

import json
import os
import re
import sys

UJI = ["uji-lib", "uji-geo-4", "uji-geo-12", "uji-geo-20"]
# The baselines' figures (the datasets' reference implementations: BASELINES.md beside the
# converted data); quoted, not measured here.
BASELINES = {"uji-lib": ("1.97 / 5.15", "1.54"), "uji-geo-4": ("2.92 / 5.97", "2.12"),
             "uji-geo-12": ("2.92 / 6.47", "2.16"), "uji-geo-20": ("2.81 / 6.13", "2.05")}
CLASSIFIER_ORDER = ["forest", "knn", "basic", "naive-bayes"]


def load(directory, name):
    path = os.path.join(directory, name)
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def text(directory, name):
    path = os.path.join(directory, name)
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def record(reports, algorithm="default", kind="positioning"):
    if isinstance(reports, dict):
        reports = [reports]
    for report in reports:
        if report.get("kind", "positioning") == kind and report.get("algorithm") == algorithm:
            return report
    raise SystemExit(f"error: no {kind} record for {algorithm!r} in the reports")


def metres(value):
    """Metres to the centimetre. The reports give millimetres; a value whose millimetre digit is
    5 (1.325) rounds to either neighbour depending on the digits the report dropped, so it is
    shown to the millimetre instead of guessed."""
    millimetres = round(value * 1000)
    if millimetres % 10 == 5:
        return f"{millimetres / 1000:.3f}"
    return f"{round(millimetres / 10) / 100:.2f}"


def percent(value):
    """A share in whole percent; the reports give it to 0.01 %, so one ending in exactly .5 % is
    shown to the tenth."""
    hundredths = round(value * 10000)
    if hundredths % 100 == 50:
        return f"{hundredths / 100:.1f} %"
    return f"{round(hundredths / 100):d} %"


def choice(note):
    """The default's pipeline choice and its validation error, from eval's note on standard error."""
    options = re.search(r"default: (--rssi-filter [^\s,]+ --tracking [^\s,]+)", note)
    error = re.search(r"mean error ([0-9.]+) m there", note)
    return (options.group(1) if options else "?"), (error.group(1) if error else "?")


def main(directory):
    print("## Positioning (trained on train.jsonl, scored on test.jsonl)\n")
    print("| dataset | located | mean | median | p95 | truth inside the 68 % radius "
          "| best full-coverage baseline mean / p95 | best median of any baseline |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    notes = {}
    for dataset in UJI:
        default = record(load(directory, f"{dataset}.eval.json"))
        error = default["error"]
        baseline, median = BASELINES[dataset]
        print(f"| {dataset} | {default['located']} / {default['scans']} | **{metres(error['mean'])}** "
              f"| **{metres(error['median'])}** | **{metres(error['p95'])}** | {percent(default['accuracyCoverage'])} "
              f"| {baseline} | {median} |")
        notes[dataset] = choice(text(directory, f"{dataset}.eval.err"))
    print("\n(The baseline columns are quoted from the datasets' reference implementations, not measured here. "
          "A figure shown to the millimetre is one the report's millimetres cannot round to the centimetre.)\n")

    print("The default's choice in its cross-validation replay of the training data, and the replay's mean error:\n")
    print("| dataset | chosen pipeline | held-out mean error on the training recording (m) |")
    print("|---|---|---:|")
    for dataset in UJI:
        options, error = notes[dataset]
        print(f"| {dataset} | `{options}` | {error} |")

    print("\nForced `--rssi-filter none --tracking stop-and-go` (trained): tracked fixes\n")
    print("| dataset | located | mean | median | p95 | truth inside the 68 % radius |")
    print("|---|---|---:|---:|---:|---:|")
    for dataset in UJI:
        report = record(load(directory, f"{dataset}.stop-and-go.json"))
        error = report["error"]
        print(f"| {dataset} | {report['located']} / {report['scans']} | {metres(error['mean'])} | "
              f"{metres(error['median'])} | {metres(error['p95'])} | {percent(report['accuracyCoverage'])} |")

    print("\nUntrained (no `--train`: the venue's radio model and a simulated survey)\n")
    print("| dataset | chosen pipeline | mean | truth inside the 68 % radius "
          "| with `--rssi-filter kalman --tracking none`: mean | inside |")
    print("|---|---|---:|---:|---:|---:|")
    for dataset in UJI:
        report = record(load(directory, f"{dataset}.untrained.json"))
        kalman = record(load(directory, f"{dataset}.untrained-kalman.json"))
        options, _ = choice(text(directory, f"{dataset}.untrained.err"))
        print(f"| {dataset} | `{options}` | {metres(report['error']['mean'])} | {percent(report['accuracyCoverage'])} "
              f"| {metres(kalman['error']['mean'])} | {percent(kalman['accuracyCoverage'])} |")

    print("\n## Room classification on esiiab\n")
    reports = load(directory, "esiiab.eval.json")
    default = record(reports, "default", "classifier")
    others = [record(reports, name, "classifier") for name in CLASSIFIER_ORDER]
    print("| classifier | place accuracy | floor accuracy |")
    print("|---|---:|---:|")
    print(f"| default | **{default['placeAccuracy']:.3f}** | **{default['floorAccuracy']:.3f}** |")
    print("| random forest (ours, untuned) / kNN / Bluenet basic / naive Bayes (fixed) | "
          + " / ".join(f"{r['placeAccuracy']:.3f}" for r in others) + " | "
          + " / ".join(f"{r['floorAccuracy']:.3f}" for r in others) + " |")
    print("| best baseline (random forest, tuned) | 0.470 | 0.930 |")
    print("\n(The baseline row is quoted from the dataset's reference implementation, not measured here.)")
    trained = text(directory, "esiiab.train.err").strip()
    chosen = re.search(r"chose the ([a-z ]+) \(([^)]*)\)", trained)
    if chosen:
        print(f"\n`whereabouts train` (default classifier): chose the {chosen.group(1)}; held out: {chosen.group(2)}.")

    print("\n## Calibration on the training splits\n")
    print("| dataset | samples (left out) | txPower (dBm) | n | robust σ (dB) | per-beacon n |")
    print("|---|---:|---:|---:|---:|---|")
    offsets = {}
    for dataset in UJI:
        output = text(directory, f"{dataset}.calibrate.txt")
        samples = re.search(r"^Calibration \([^)]*\): (\d+) samples", output, re.M)
        left = re.search(r"(\d+) of \d+ left out", output)
        fit = re.search(r"^Venue fit: A = (-?[0-9.]+) dBm, n = ([0-9.]+)\s+\(robust σ ([0-9.]+) dB", output, re.M)
        beacons = re.search(r"^Beacons: \d+, n from ([0-9.]+) to ([0-9.]+)", output, re.M)
        if not (samples and fit and beacons):
            raise SystemExit(f"error: {dataset}.calibrate.txt: not the calibration summary expected")
        a = fit.group(1).replace("-", "−")
        print(f"| {dataset} | {samples.group(1)} ({left.group(1) if left else 0}) | {a} | {fit.group(2)} "
              f"| {fit.group(3)} | {beacons.group(1)}–{beacons.group(2)} |")
        line = re.search(r"^Device offsets: (.*?) dB", output, re.M)
        if line:
            offsets[dataset] = line.group(1)
    for dataset, line in offsets.items():
        print(f"\nDevice offsets ({dataset}): {line} dB")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    main(sys.argv[1])
