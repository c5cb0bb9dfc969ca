# Sourced by load-test.sh and ingest-benchmark.sh: gives one user a full day to read back.
#
#   post_day_track URL TOKEN DAY   # 2,880 positions, one every 30 s from DAY (seconds since 1970),
#                                  # in three batch calls of 960; exits the script on failure
post_day_track() {
    local url=$1 token=$2 day=$3 part
    for part in 0 1 2; do
        awk -v day="$day" -v part="$part" 'BEGIN {
            printf "["
            for (i = 0; i < 960; i++) {
                t = day + (part * 960 + i) * 30
                printf "%s{\"method\":\"events.create\",\"params\":{\"streamIds\":[\"position\"],\"time\":%d,\"type\":\"position/wgs84\",\"content\":{\"latitude\":%.6f,\"longitude\":%.6f}}}",
                    (i > 0 ? "," : ""), t, 46.5 + i / 100000, 6.6 + i / 100000
            }
            printf "]"
        }' | curl -sf -o /dev/null -H "Authorization: $token" -H "Content-Type: application/json" \
            --data-binary @- "$url/" || { echo "could not post the day's track" >&2; exit 1; }
    done
}
