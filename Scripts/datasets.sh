#!/usr/bin/env bash
# Fetches the public datasets the accuracy figures are measured on, at pinned commits, and
# converts them into Whereabouts' formats (Documentation/Datasets.md says how, row by row):
#
#   DIR/uji-lib/{venue.json,train.jsonl,test.jsonl}
#   DIR/uji-geo-4/…  DIR/uji-geo-12/…  DIR/uji-geo-20/…  DIR/esiiab/…
#
#   Scripts/datasets.sh                # into data/public (ignored by git)
#   Scripts/datasets.sh /tmp/public    # elsewhere
#
# Then checks each converted file against the SHA-256 of the files the published figures were
# measured on, and runs `whereabouts validate` on each dataset when the binary is found. The raw
# files are not part of this repository (their licences are their authors'), and neither are
# the converted ones.
#
# Environment:
#   CACHE        where the raw files are kept between runs (default ~/.cache/whereabouts-datasets)
#   RAW_UJI      a folder laid out as the UJI database's `data` folder (rss/, dep/) to convert
#                instead of fetching one, e.g. unpacked from the Zenodo record 10.5281/zenodo.1618692
#   RAW_ESIIAB   a checkout of the ESIIAB repository (data/Tx0.csv, metadata/) instead of fetching
#   WHEREABOUTS  the binary for `validate` (default: `whereabouts` on PATH, else .build/release/whereabouts)
#   CURL         the download command (default: curl)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${1:-$ROOT/data/public}
CACHE=${CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/whereabouts-datasets}
CURL=${CURL:-curl}
PYTHON=${PYTHON:-python3}

# UJI BLE RSS database v1.0 (Mendoza-Silva et al., CC BY 4.0), as copied into the public
# repository Kassiopeia14/IndoorPositioning (folder UJI_BLE_DB). The commit is the one the
# published conversions name as their source.
UJI_REPO=Kassiopeia14/IndoorPositioning
UJI_COMMIT=ea387895e7301154c14438e534676b27bf1a7d5f
UJI_FILES=(rss/lib_rss.csv rss/lib_tms.csv rss/lib_crd.csv rss/lib_ids.csv
           rss/geo_rss.csv rss/geo_tms.csv rss/geo_crd.csv rss/geo_ids.csv
           dep/lib.csv dep/geo.csv)
# ESIIAB BLE RSSI indoor localization dataset (UCLM, Apache-2.0 per its LICENSE file).
ESIIAB_REPO=manwestc/ble-rssi-indoor-localization-dataset
ESIIAB_COMMIT=b38a9a4a53a01f52136f4e9b29b5045f61655a06
ESIIAB_FILES=(data/Tx0.csv metadata/beacon_metadata.csv metadata/sector_metadata.csv)

# SHA-256 of the converted files the README's figures were measured on. The raw files' own
# checksums are not listed: they could not be downloaded where this script was written. A raw
# file at a pinned commit cannot change, and these checksums of the conversion's output check
# the raw files and the converters together.
EXPECTED_SHA256="
6d4dddbcee155c58bfe7c40ee7f6888752f63a3ed22e1cc0c40ca8d4c386ed81  uji-lib/venue.json
b1efab1753cce7b65411d2956a91d60b89f0526c622b0f3050058706b5fff2ae  uji-lib/train.jsonl
1cb504e500bddd48260e32f2a318e7cf2bd107d2e361dcaf6ff175736665d437  uji-lib/test.jsonl
5e9f31202ed22aa38aa69cbe86a6c88e13764efc4473c86c3599d00b54b4ff24  uji-geo-4/venue.json
4f6847cc5791781e5c86c0fff15b862dd841362c016d0f53b86d1b41292c36db  uji-geo-4/train.jsonl
8712230a9773c4fa7bc45ebbcb5c84deb90d69a4fbbce30edd0fce25e078b318  uji-geo-4/test.jsonl
a36f8d16e9dbcd899d49ff3feb3520f8c50ae2442c13e30e38264661e048c226  uji-geo-12/venue.json
55c9f14985962cb0fd932d93714376959e0425c013e6c5319683d3ab5a59b684  uji-geo-12/train.jsonl
e52ee5d6c932bc6d6534c9f7e5294be252d764379ec57e70627771c512e93cf9  uji-geo-12/test.jsonl
2e2bf83494315e3b192e825341c132dbb9f1f2ffc5cbdddc1e59c70b8deb55bb  uji-geo-20/venue.json
3ae896f7b338cfa83ab69a0e00b453e50e95498f034a9890f09ad6b016789687  uji-geo-20/train.jsonl
ba0db26d91a662c419311d21eaff4fe5713ba8afb10d37c496c1cf83b51de016  uji-geo-20/test.jsonl
198ef298618f4a3d6d60526459361fdc5d2b1710fcffcb8744ceb56a158d900c  esiiab/venue.json
b0171700e8770753b212a94e2f16ec555a24c6f23f8acb05fcb5ad1877493da1  esiiab/train.jsonl
e935ad21df130403713af254f75e1016f71483f2340fd8d24c8d143e2660f2a4  esiiab/test.jsonl
"

fail() { echo "error: $*" >&2; exit 1; }

# fetch REPO COMMIT PREFIX FILE… : raw.githubusercontent.com/REPO/COMMIT/PREFIXFILE into the cache.
fetch() {
    local repo=$1 commit=$2 prefix=$3; shift 3
    local folder=$CACHE/${repo//\//_}@$commit file url
    for file in "$@"; do
        [[ -s $folder/$file ]] && continue
        url=https://raw.githubusercontent.com/$repo/$commit/$prefix$file
        mkdir -p "$(dirname "$folder/$file")"
        echo "Fetching $url" >&2
        if ! $CURL -fsSL --retry 2 --connect-timeout 20 -o "$folder/$file.partial" "$url"; then
            rm -f "$folder/$file.partial"
            fail "cannot fetch $url — this step needs internet access to raw.githubusercontent.com" \
                 "(or give the raw files with RAW_UJI / RAW_ESIIAB; see the top of $0)."
        fi
        mv "$folder/$file.partial" "$folder/$file"
    done
    echo "$folder"
}

command -v "$PYTHON" > /dev/null || fail "$PYTHON is needed to convert the datasets."
if [[ -n ${RAW_UJI:-} ]]; then
    uji=$RAW_UJI
    uji_source="$RAW_UJI (given with RAW_UJI)"
else
    uji=$(fetch "$UJI_REPO" "$UJI_COMMIT" UJI_BLE_DB/data/ "${UJI_FILES[@]}")/UJI_BLE_DB/data
    uji_source="github.com/$UJI_REPO@$UJI_COMMIT:UJI_BLE_DB/data"
fi
if [[ -n ${RAW_ESIIAB:-} ]]; then
    esiiab=$RAW_ESIIAB
else
    esiiab=$(fetch "$ESIIAB_REPO" "$ESIIAB_COMMIT" "" "${ESIIAB_FILES[@]}")
fi

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
# The venues name the pinned sources either way, as the published conversion does.
"$PYTHON" "$ROOT/Scripts/datasets/convert_uji.py" "$uji" "$OUT" \
    --source "github.com/$UJI_REPO@$UJI_COMMIT:UJI_BLE_DB/data"
"$PYTHON" "$ROOT/Scripts/datasets/convert_esiiab.py" "$esiiab/data/Tx0.csv" "$esiiab/metadata/beacon_metadata.csv" \
    "$OUT" --sectors "$esiiab/metadata/sector_metadata.csv" \
    --source "github.com/$ESIIAB_REPO@$ESIIAB_COMMIT"
[[ -z ${RAW_UJI:-} ]] || echo "note: UJI converted from $uji_source" >&2

# Same bytes as the files the figures were measured on?
mismatched=0
while read -r sum file; do
    [[ -n $file ]] || continue
    actual=$(sha256sum "$OUT/$file" | cut -d' ' -f1)
    if [[ $actual != "$sum" ]]; then
        echo "warning: $OUT/$file differs from the file the published figures were measured on (sha256 $actual)" >&2
        mismatched=$((mismatched + 1))
    fi
done <<< "$EXPECTED_SHA256"
if (( mismatched )); then
    echo "warning: $mismatched converted files differ: figures measured on them may differ from the README's." >&2
else
    echo "All 15 converted files are byte for byte those the published figures were measured on."
fi

# Validate with the CLI when it is at hand.
binary=${WHEREABOUTS:-$(command -v whereabouts || true)}
[[ -n $binary ]] || binary=$ROOT/.build/release/whereabouts
if [[ -x $binary ]]; then
    for dataset in uji-lib uji-geo-4 uji-geo-12 uji-geo-20 esiiab; do
        # The converted files' extra keys (Datasets.md) are warned about as unknown: not repeated here.
        report=$("$binary" validate --venue "$OUT/$dataset/venue.json" "$OUT/$dataset/train.jsonl" \
                 "$OUT/$dataset/test.jsonl" 2>&1) || { echo "$report" >&2; fail "whereabouts validate rejected $OUT/$dataset"; }
        grep -vE ': (src|txPowerSetting|source|note): unknown key, ignored' <<< "$report" || true
    done
else
    echo "note: whereabouts not found (PATH, WHEREABOUTS or .build/release); skipped validate." >&2
fi

echo
echo "The datasets are in $OUT. For the commands of Documentation/Accuracy.md and Scripts/accuracy.sh:"
echo "DATA=$OUT"
(( mismatched == 0 )) || exit 2
