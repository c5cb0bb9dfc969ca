#!/usr/bin/env bash
# Accuracy on venues no setting was chosen on: draws members of the simulated venue family
# (`whereabouts simulate --family`), scores every algorithm and room classifier on each with
# `whereabouts eval --algorithm all --classifier all`, and prints a Markdown table of the means
# over the seeds, with how often the default was within 2 % and 5 % of its best member (and the
# seeds where it was not), how far the default room classifier is from its best single one (and
# the seeds where it is more than 0.01 below), the posterior's mean and p95 error ÷ the default's
# venue by venue, and the room accuracy of the default's fixes (the `rooms` records) by most
# probable place and by point.
#
# Choose and tune on seeds 1–5 only (`SEEDS=1-5`); report seeds 6–25 (the default).
#
#   Scripts/generalization.sh                 # seeds 6–25
#   SEEDS=1-5 Scripts/generalization.sh       # the tuning seeds
#   SEEDS="7 9" OUT=/tmp/fam Scripts/generalization.sh
#
# Environment: SEEDS ("A-B" or a list; default 6-25), OUT (where the venues and reports go;
# default a temporary folder), WHEREABOUTS (the binary; default .build/release/whereabouts, built
# when missing), EVAL_OPTIONS (more options for every eval, e.g. "--tracking none").
set -euo pipefail
cd "$(dirname "$0")/.."

SEEDS=${SEEDS:-6-25}
if [[ $SEEDS =~ ^([0-9]+)-([0-9]+)$ ]]; then
    SEEDS=$(seq "${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}")
fi
OUT=${OUT:-$(mktemp -d -t whereabouts-family.XXXXXX)}
WHEREABOUTS=${WHEREABOUTS:-.build/release/whereabouts}
command -v jq > /dev/null || { echo "error: jq is needed (apt-get install jq)" >&2; exit 1; }
if [[ ! -x $WHEREABOUTS ]]; then
    echo "Building $WHEREABOUTS (release)…" >&2
    swift build -c release --product whereabouts >&2
fi

mkdir -p "$OUT"
reports=()
for seed in $SEEDS; do
    dir=$OUT/$seed
    "$WHEREABOUTS" simulate --family --seed "$seed" --directory "$dir" --quiet 2> "$dir.log" || { cat "$dir.log" >&2; exit 1; }
    echo "seed $seed: $(sed -n 's/.*family seed [0-9]*, //p' "$dir.log")" >&2
    # shellcheck disable=SC2086
    "$WHEREABOUTS" eval --venue "$dir/venue.json" --train "$dir/train.jsonl" --test "$dir/test.jsonl" \
        --algorithm all --classifier all --json --quiet ${EVAL_OPTIONS:-} > "$dir/eval.json"
    reports+=("$dir/eval.json")
done

# One object per seed: {seed, records}; then the means per name, and the default against its members.
seed_list=$(printf '%s\n' $SEEDS | jq -s -c .)
jq -s -r --argjson members '["centroid", "multilateration", "knn"]' --argjson seedList "$seed_list" '
  def mean: if length == 0 then null else add / length end;
  def fmt(d): if . == null then "–" else (. * pow(10; d) | round / pow(10; d) | tostring) end;
  [ .[] | map(select(.kind == "positioning" or .kind == null)) ] as $positioning
  | [ .[] | map(select(.kind == "classifier")) ] as $classifiers
  | [ .[] | map(select(.kind == "rooms")) | .[] ] as $rooms
  | ($positioning | length) as $seeds
  | ($positioning[0] | map(.name)) as $names
  | "Seeds: \($seeds). Means over the seeds of each venue'"'"'s mean and p95 error (m), radius coverage, place accuracy.\n",
    "| algorithm | mean | p95 | inside radius | place accuracy |",
    "|---|---:|---:|---:|---:|",
    ( $names[] as $name
      | [ $positioning[] | map(select(.name == $name))[0] ] as $rows
      | "| \($name) | \([$rows[].error.mean] | mean | fmt(2)) | \([$rows[].error.p95] | mean | fmt(2)) | "
        + "\([$rows[] | .accuracyCoverage // empty] | mean | fmt(3)) | \([$rows[] | .placeAccuracy // empty] | mean | fmt(3)) |" ),
    "",
    ( [ $positioning | to_entries[] | .key as $i | .value
        | (map(select(.name == "default"))[0]) as $d
        | (map(select(.name as $n | $members | index($n))) ) as $m
        | { seed: $seedList[$i], mean: ($d.error.mean / ([$m[].error.mean] | min)), p95: ($d.error.p95 / ([$m[].error.p95] | min)) } ] as $ratios
      | "Default ÷ best member: mean \([$ratios[].mean] | mean | fmt(3)) (worst \([$ratios[].mean] | max | fmt(3))), "
        + "p95 \([$ratios[].p95] | mean | fmt(3)) (worst \([$ratios[].p95] | max | fmt(3))); "
        + "within 1.02 on both: \([$ratios[] | select(.mean <= 1.02 and .p95 <= 1.02)] | length) of \($seeds) seeds, "
        + "within 1.05: \([$ratios[] | select(.mean <= 1.05 and .p95 <= 1.05)] | length). "
        + "Above 1.02: \([$ratios[] | select(.mean > 1.02 or .p95 > 1.02) | "seed \(.seed) (\(.mean | fmt(3)), \(.p95 | fmt(3)))"] | if length == 0 then "none" else join(", ") end)." ),
    "",
    ( [ $positioning | to_entries[] | .key as $i | .value
        | (map(select(.name == "default"))[0]) as $d | (map(select(.name == "posterior"))[0]) as $p
        | select($d != null and $p != null and $d.error.mean > 0 and $d.error.p95 > 0)
        | { seed: $seedList[$i], mean: ($p.error.mean / $d.error.mean), p95: ($p.error.p95 / $d.error.p95) } ] as $posterior
      | if ($posterior | length) == 0 then empty else
          "Posterior ÷ default, venue by venue: mean \([$posterior[].mean] | mean | fmt(3)) "
          + "(\([$posterior[].mean] | min | fmt(2))–\([$posterior[].mean] | max | fmt(2))), "
          + "p95 \([$posterior[].p95] | mean | fmt(3)) (\([$posterior[].p95] | min | fmt(2))–\([$posterior[].p95] | max | fmt(2))); "
          + "above 1.02: \([$posterior[] | select(.mean > 1.02) | "seed \(.seed) (\(.mean | fmt(2)))"] | if length == 0 then "none" else join(", ") end).",
          ""
        end ),
    ( if ($classifiers[0] | length) > 0 then
        "| classifier | place accuracy | floor accuracy |",
        "|---|---:|---:|",
        ( ($classifiers[0] | map(.name))[] as $name
          | [ $classifiers[] | map(select(.name == $name))[0] ] as $rows
          | "| \($name) | \([$rows[] | .placeAccuracy // empty] | mean | fmt(3)) | \([$rows[] | .floorAccuracy // empty] | mean | fmt(3)) |" ),
        "",
        ( [ $classifiers | to_entries[] | .key as $i | .value
            | (map(select(.name == "classifier:default"))[0].placeAccuracy) as $d
            | (map(select(.name != "classifier:default" and .name != "classifier:basic" and .placeAccuracy != null)) | max_by(.placeAccuracy)) as $b
            | select($d != null and $b != null)
            | { seed: $seedList[$i], gap: ($d - $b.placeAccuracy), best: ($b.name | sub("^classifier:"; "")) } ] as $gaps
          | "Default classifier − its best single one (naive Bayes, kNN, forest): mean \([$gaps[].gap] | mean | fmt(3)); "
            + "at least −0.01 on \([$gaps[] | select(.gap >= -0.01)] | length) of \($gaps | length) seeds. "
            + "Below: \([$gaps[] | select(.gap < -0.01) | "seed \(.seed) (\(.gap | fmt(3)), \(.best))"] | if length == 0 then "none" else join(", ") end)." )
      else empty end ),
    ( if ($rooms | length) > 0 then
        "",
        "Rooms of the default'"'"'s fixes, per scan (\($rooms | length) seeds): the place holding most of the fix, and the place of its point.",
        "",
        "| rule | place accuracy |",
        "|---|---:|",
        "| most probable place | \([$rooms[] | .placeAccuracy // empty] | mean | fmt(3)) |",
        "| point containment | \([$rooms[] | .pointPlaceAccuracy // empty] | mean | fmt(3)) |"
      else empty end )
' "${reports[@]}"
echo "Venues and reports: $OUT" >&2
