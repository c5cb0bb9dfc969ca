#!/usr/bin/env bash
# Moving in, timed: a synthetic history of POINTS positions (1,000,000 by default) in each
# format `whereabouts import` reads, imported into a fresh SQLite store by a release build, then
# imported again (every position found there already). Prints positions/s for each, and checks
# that every position was stored once.
#
#   Scripts/import-benchmark.sh                  # 1 M points, OwnTracks Recorder, GPX, Google Takeout
#   POINTS=200000 FORMATS="owntracks" Scripts/import-benchmark.sh
#   WHEREABOUTS=/path/to/whereabouts Scripts/import-benchmark.sh    # another build
#
# The histories: OwnTracks Recorder `.rec` files of 4 devices, a month each per 100,000 points
# (lines as the Recorder writes them); GPX files of 10,000 track points each; one Takeout
# Records.json. Positions are a walk around Lausanne, one every 10 s. Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."

POINTS=${POINTS:-1000000}
FORMATS=${FORMATS:-"owntracks gpx takeout"}
if [[ -z "${WHEREABOUTS:-}" ]]; then
    swift build -c release --product whereabouts >&2
    WHEREABOUTS=.build/release/whereabouts
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

echo "Writing $POINTS points in each of: $FORMATS…" >&2
python3 - "$WORK" "$POINTS" "$FORMATS" <<'PY'
import json, math, os, sys, time
root, points, formats = sys.argv[1], int(sys.argv[2]), sys.argv[3].split()
start = 1_700_000_000
def fix(i):
    angle = i * 0.001
    return 46.52 + 0.01 * math.sin(angle) + i * 1e-9, 6.63 + 0.01 * math.cos(angle), start + 10 * i
if "owntracks" in formats:
    devices = ["phone", "tablet", "watch", "car"]
    files = {}
    for i in range(points):
        lat, lon, tst = fix(i)
        device = devices[i % 4]
        month = time.strftime("%Y-%m", time.gmtime(start + (i // 100_000) * 31 * 86_400))
        path = f"{root}/owntracks/rec/jane/{device}/{month}.rec"
        if path not in files:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            files[path] = open(path, "w")
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(tst))
        message = {"_type": "location", "tid": device[:2], "lat": round(lat, 7), "lon": round(lon, 7), "tst": tst,
                   "acc": 5 + i % 20, "alt": 380 + i % 7, "vel": i % 30, "cog": i % 360, "batt": 50 + i % 50}
        files[path].write(f"{stamp}\t*                 \t{json.dumps(message, separators=(',', ':'))}\n")
    for f in files.values(): f.close()
if "gpx" in formats:
    os.makedirs(f"{root}/gpx", exist_ok=True)
    for first in range(0, points, 10_000):
        with open(f"{root}/gpx/track-{first // 10_000:05d}.gpx", "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="benchmark" xmlns="http://www.topografix.com/GPX/1/1">\n')
            f.write(f"<trk><name>Track {first // 10_000}</name><trkseg>\n")
            for i in range(first, min(points, first + 10_000)):
                lat, lon, tst = fix(i)
                stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(tst))
                f.write(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{380 + i % 7}</ele><time>{stamp}</time></trkpt>\n')
            f.write("</trkseg></trk>\n</gpx>\n")
if "takeout" in formats:
    os.makedirs(f"{root}/takeout", exist_ok=True)
    with open(f"{root}/takeout/Records.json", "w") as f:
        f.write('{\n  "locations": [')
        for i in range(points):
            lat, lon, tst = fix(i)
            stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(tst)) + ".000Z"
            record = {"latitudeE7": round(lat * 1e7), "longitudeE7": round(lon * 1e7), "accuracy": 5 + i % 20,
                      "source": "WIFI", "deviceTag": 1234, "timestamp": stamp}
            f.write(("," if i else "") + "{\n    " + json.dumps(record, indent=None)[1:-1].replace(", ", ",\n    ") + "\n  }")
        f.write("]\n}\n")
PY

printf '| format | points | first import (positions/s) | again (positions/s) |\n|---|---|---|---|\n'
for format in $FORMATS; do
    data="$WORK/data-$format"
    "$WHEREABOUTS" users add jane --data-dir "$data" > /dev/null 2>&1
    runs=()
    for round in first again; do
        out=$("$WHEREABOUTS" import "$WORK/$format" --user jane --format "$format" --data-dir "$data" 2>&1 | tail -1)
        rate=$(sed -E 's/.* ([0-9]+) positions\/s\./\1/' <<< "$out")
        stored=$(sed -E 's/^Imported ([0-9,]+) position.*/\1/' <<< "$out" | tr -d ,)
        there=$(sed -E 's/.*\(([0-9]+) there already.*/\1/' <<< "$out")
        if [[ $round == first && $stored != "$POINTS" ]] || [[ $round == again && $there != "$POINTS" ]]; then
            echo "$format, $round import: expected $POINTS positions, got: $out" >&2
            exit 1
        fi
        runs+=("$rate")
    done
    printf '| %s | %s | %s | %s |\n' "$format" "$POINTS" "${runs[0]}" "${runs[1]}"
done
