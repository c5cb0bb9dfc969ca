"""The dataset converters on small made-up files shaped like the raw ones (fixtures/).

    python3 -m unittest discover -s Scripts/datasets -v

fixtures/uji/data is laid out as the UJI database's data folder (rss/{lib,geo}_{rss,tms,crd,ids}.csv,
dep/{lib,geo}.csv, no headers in rss/); fixtures/esiiab as the ESIIAB repository (data/Tx0.csv,
metadata/*.csv), with 3 rows a sector instead of 100.
"""

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import convert_esiiab  # noqa: E402
import convert_uji  # noqa: E402
from common import ConversionError  # noqa: E402

FIXTURES = os.path.join(HERE, "fixtures")
UJI = os.path.join(FIXTURES, "uji", "data")
ESIIAB = os.path.join(FIXTURES, "esiiab")
LIB_SOURCE = ("github.com/Kassiopeia14/IndoorPositioning@ea387895e7301154c14438e534676b27bf1a7d5f:UJI_BLE_DB/data"
              " (Zenodo 10.5281/zenodo.1618692, CC BY 4.0)")


def quietly(main, arguments):
    """Runs a converter's main without its summary lines on stdout."""
    with contextlib.redirect_stdout(io.StringIO()):
        main(arguments)


def lines(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().splitlines()


class Temporary(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="datasets-test-")
        self.addCleanup(shutil.rmtree, self.directory)

    def copy(self, source):
        target = os.path.join(self.directory, "raw")
        shutil.copytree(source, target)
        return target

    def edit(self, path, line, text):
        """Replaces 1-based line `line` of path with text."""
        content = lines(path)
        content[line - 1] = text
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("\n".join(content) + "\n")


class UJIConversion(Temporary):
    def setUp(self):
        super().setUp()
        self.out = os.path.join(self.directory, "out")
        quietly(convert_uji.main, [UJI, self.out])

    def test_library_training_is_campaign_2_with_empty_scans_kept(self):
        self.assertEqual(lines(os.path.join(self.out, "uji-lib", "train.jsonl")), [
            # 100 = not detected: beacon 24 has no reading; t = the latest detected time, 1000.5 s
            '{"t":1000.5,"device":"A5","readings":[{"beacon":"23","rssi":-57},{"beacon":"25","rssi":-63}],'
            '"truth":{"x":29.22,"y":12.91},"src":0}',
            # nothing detected: kept, with the previous row's t of the same phone
            '{"t":1000.5,"device":"A5","readings":[],"truth":{"x":29.22,"y":12.91},"src":1}',
            '{"t":1002.25,"device":"A5","readings":[{"beacon":"24","rssi":-70}],"truth":{"x":29.22,"y":10.72},"src":2}',
            # the first row of another phone that detected nothing starts at 0
            '{"t":0.0,"device":"BQ","readings":[],"truth":{"x":29.22,"y":12.91},"src":6}',
            '{"t":0.5,"device":"BQ","readings":[{"beacon":"23","rssi":-75}],"truth":{"x":29.22,"y":12.91},"src":7}',
        ])

    def test_library_test_is_campaign_3_without_outer_points(self):
        # rows 3 (point 1), 8 (point 17), 9 (point 68) and 11 (point 18) are outer points: in neither file
        self.assertEqual(lines(os.path.join(self.out, "uji-lib", "test.jsonl")), [
            # nothing detected; the previous A5 row is the unused row 3 (t 2000 s)
            '{"t":2000.0,"device":"A5","readings":[],"truth":{"x":27.43,"y":8.52},"src":4}',
            '{"t":2001.1,"device":"A5","readings":[{"beacon":"23","rssi":-65},{"beacon":"24","rssi":-66},'
            '{"beacon":"25","rssi":-67}],"truth":{"x":27.43,"y":8.52},"src":5}',
            '{"t":7000.123457,"device":"S6","readings":[{"beacon":"23","rssi":-61},{"beacon":"24","rssi":-62}],'
            '"truth":{"x":25.0,"y":4.13},"src":10}',
        ])

    def test_library_venue(self):
        with open(os.path.join(self.out, "uji-lib", "venue.json"), encoding="utf-8") as handle:
            text = handle.read()
        self.assertTrue(text.startswith('{\n "name": "UJI library zone'))
        self.assertEqual(json.loads(text), {
            "name": "UJI library zone (Universitat Jaume I), BLE RSS DB v1.0",
            "source": LIB_SOURCE,
            "floors": [{"level": 0, "name": "library floor", "elevation": 0.0}],
            "beacons": [{"id": "23", "x": 30.5, "y": 14.25, "floor": 0},
                        {"id": "24", "x": 30.5, "y": 9.9, "floor": 0},
                        {"id": "25", "x": 27.9, "y": 12, "floor": 0}],
            "places": [],
        })
        self.assertIn('"y": 12,', text)  # 12.00 is written as an integer, as the published venue has it

    def test_geo_one_folder_a_power_setting_split_by_point(self):
        expected = {
            "uji-geo-4": (['{"t":8030.420034,"device":"A5","readings":[{"beacon":"B1","rssi":-60}],'
                           '"truth":{"x":16.091,"y":2.795},"src":0,"txPowerSetting":-4}'],
                          # point 6 is a test point; nothing detected: the previous -4 dBm row's t
                          ['{"t":8030.420034,"device":"A5","readings":[],"truth":{"x":12.514,"y":2.795},'
                           '"src":1,"txPowerSetting":-4}']),
            # each power setting has a clock of its own: t may be lower than the previous setting's
            "uji-geo-12": (['{"t":4648.234484,"device":"A5","readings":[{"beacon":"B1","rssi":-70},'
                            '{"beacon":"B2","rssi":-80}],"truth":{"x":16.091,"y":2.795},"src":2,"txPowerSetting":-12}'],
                           []),
            "uji-geo-20": (['{"t":6466.0,"device":"A5","readings":[{"beacon":"B1","rssi":-88}],'
                            '"truth":{"x":4.448,"y":0.6},"src":4,"txPowerSetting":-20}'],
                           ['{"t":6465.599193,"device":"A5","readings":[{"beacon":"B2","rssi":-90}],'
                            '"truth":{"x":12.514,"y":2.795},"src":3,"txPowerSetting":-20}']),
        }
        for folder, (train, test) in expected.items():
            with self.subTest(folder=folder):
                self.assertEqual(lines(os.path.join(self.out, folder, "train.jsonl")), train)
                self.assertEqual(lines(os.path.join(self.out, folder, "test.jsonl")), test)

    def test_geo_venue_names_the_power_and_beacons_b1_b2(self):
        with open(os.path.join(self.out, "uji-geo-20", "venue.json"), encoding="utf-8") as handle:
            venue = json.load(handle)
        self.assertEqual(venue["name"], "UJI Geotec lab zone (Universitat Jaume I), BLE RSS DB v1.0, beacons at -20 dBm")
        self.assertEqual(venue["floors"], [{"level": 0, "name": "Geotec lab", "elevation": 0.0}])
        self.assertEqual(venue["beacons"], [{"id": "B1", "x": 15.993, "y": 10.168, "floor": 0},
                                            {"id": "B2", "x": 0.6, "y": 0.6, "floor": 0}])

    def test_geo_split_is_the_authors_full_limits(self):
        self.assertEqual(len(convert_uji.GEO_TRAIN_POINTS), 48)
        # points p and 69 - p are the same position: both visits are on the same side
        self.assertEqual({69 - p for p in convert_uji.GEO_TRAIN_POINTS}, convert_uji.GEO_TRAIN_POINTS)


class UJIRefusals(Temporary):
    def refused(self, relative, line, text, message):
        raw = self.copy(UJI)
        self.edit(os.path.join(raw, relative), line, text)
        with self.assertRaises(ConversionError) as caught:
            quietly(convert_uji.main, [raw, os.path.join(self.directory, "out")])
        self.assertIn(message, str(caught.exception))
        return str(caught.exception)

    def test_a_row_with_a_missing_column(self):
        self.refused("rss/lib_rss.csv", 3, "100,-70",
                     "rss/lib_rss.csv:3: 2 RSS columns (one a beacon of the deployment file), expected 3")

    def test_a_non_numeric_rss(self):
        self.refused("rss/lib_rss.csv", 6, "-65,NaN?,-67", "rss/lib_rss.csv:6:2: RSS 'NaN?' is not a number")

    def test_a_positive_rss_other_than_100(self):
        self.refused("rss/geo_rss.csv", 1, "-60,5", "rss/geo_rss.csv:1:2: RSS 5 is neither 100 (not detected)")

    def test_an_unknown_phone(self):
        self.refused("rss/lib_ids.csv", 7, "42200100", "rss/lib_ids.csv:7:1: id 42200100: phone digit 4 is not one of lib's")

    def test_an_unknown_campaign(self):
        self.refused("rss/lib_ids.csv", 1, "12100100", "rss/lib_ids.csv:1:1: id 12100100: campaign digit 1 is neither 2")

    def test_a_point_out_of_range(self):
        self.refused("rss/geo_ids.csv", 2, "11106900", "rss/geo_ids.csv:2:1: id 11106900: point 69 is not one of 1-68")

    def test_a_beacon_listed_twice(self):
        self.refused("dep/lib.csv", 3, "23,30.50,09.90", "dep/lib.csv:3:1: beacon id '23' appears twice")

    def test_files_of_different_lengths(self):
        raw = self.copy(UJI)
        with open(os.path.join(raw, "rss", "lib_crd.csv"), "a", encoding="utf-8") as handle:
            handle.write("1.0,2.0\n")
        with self.assertRaises(ConversionError) as caught:
            quietly(convert_uji.main, [raw, os.path.join(self.directory, "out")])
        self.assertIn("lib_rss.csv 12, lib_tms.csv 12, lib_crd.csv 13, lib_ids.csv 12", str(caught.exception))

    def test_the_command_exits_1_with_the_error_on_stderr(self):
        raw = self.copy(UJI)
        self.edit(os.path.join(raw, "rss", "lib_tms.csv"), 2, "0,zero,0")
        result = subprocess.run([sys.executable, os.path.join(HERE, "convert_uji.py"), raw,
                                 os.path.join(self.directory, "out")], capture_output=True, text=True)
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stdout, "")
        self.assertRegex(result.stderr, r"^error: .*rss/lib_tms.csv:2:2: collection time \(ns\) 'zero' is not a number\n$")


class ESIIABConversion(Temporary):
    def convert(self, raw=ESIIAB, sectors=True):
        out = os.path.join(self.directory, "out")
        arguments = [os.path.join(raw, "data", "Tx0.csv"), os.path.join(raw, "metadata", "beacon_metadata.csv"), out,
                     "--rows-per-sector", "3", "--train-rows", "2"]
        if sectors:
            arguments += ["--sectors", os.path.join(raw, "metadata", "sector_metadata.csv")]
        quietly(convert_esiiab.main, arguments)
        return os.path.join(out, "esiiab")

    def test_split_per_sector_in_file_order_and_both_floors(self):
        folder = self.convert()
        train, test = lines(os.path.join(folder, "train.jsonl")), lines(os.path.join(folder, "test.jsonl"))
        self.assertEqual((len(train), len(test)), (56, 28))
        device = '"device":"Xiaomi Mi 9T Pro"'
        self.assertEqual(train[0], '{"t":0.0,' + device + ',"readings":[{"beacon":"B1","rssi":-50},'
                         '{"beacon":"B2","rssi":-53},{"beacon":"B3","rssi":-56},{"beacon":"B4","rssi":-59},'
                         '{"beacon":"B5","rssi":-62},{"beacon":"B6","rssi":-65}],"truth":{"place":"1A","floor":1},'
                         '"txPowerSetting":0,"src":0}')
        # the third row of sector 1 is its test row; t is the row's index
        self.assertEqual(test[0], '{"t":2.0,' + device + ',"readings":[{"beacon":"B1","rssi":-64},'
                         '{"beacon":"B2","rssi":-67},{"beacon":"B3","rssi":-70},{"beacon":"B4","rssi":-73},'
                         '{"beacon":"B5","rssi":-76},{"beacon":"B6","rssi":-79}],"truth":{"place":"1A","floor":1},'
                         '"txPowerSetting":0,"src":2}')
        truths = [(json.loads(line)["src"], json.loads(line)["truth"]) for line in test]
        self.assertEqual(truths[6], (20, {"place": "7A", "floor": 1}))    # sector 7: last of the first floor
        self.assertEqual(truths[7], (23, {"place": "1B", "floor": 0}))    # sector 8: first of the ground floor
        self.assertEqual(truths[27], (83, {"place": "21B", "floor": 0}))  # sector 28
        self.assertEqual([json.loads(line)["src"] for line in train[:4]], [0, 1, 3, 4])

    def test_venue(self):
        folder = self.convert()
        with open(os.path.join(folder, "venue.json"), encoding="utf-8") as handle:
            venue = json.load(handle)
        self.assertEqual(venue["floors"], [{"level": 0, "name": "ground floor (sectors 1B-21B)"},
                                           {"level": 1, "name": "first floor (sectors 1A-7A)"}])
        self.assertEqual(venue["beacons"], [{"id": "B1", "floor": 0}, {"id": "B2", "floor": 0}, {"id": "B3", "floor": 0},
                                            {"id": "B4", "floor": 1}, {"id": "B5", "floor": 1}, {"id": "B6", "floor": 1}])
        self.assertEqual(venue["places"][:8] + venue["places"][-1:],
                         [{"id": f"{n}A", "floor": 1} for n in range(1, 8)] + [{"id": "1B", "floor": 0},
                                                                              {"id": "21B", "floor": 0}])
        self.assertEqual(len(venue["places"]), 28)
        self.assertEqual(venue["source"], "github.com/manwestc/ble-rssi-indoor-localization-dataset@"
                         "b38a9a4a53a01f52136f4e9b29b5045f61655a06 (LICENSE file Apache-2.0; README badge CC-BY-4.0)")

    def refused(self, relative, line, text, message):
        raw = self.copy(ESIIAB)
        self.edit(os.path.join(raw, relative), line, text)
        with self.assertRaises(ConversionError) as caught:
            self.convert(raw)
        self.assertIn(message, str(caught.exception))

    def test_a_wrong_header(self):
        self.refused("data/Tx0.csv", 1, "B1,B2,B3,B4,B5,B6,sector", "data/Tx0.csv:1: header is 'B1,B2,B3,B4,B5,B6,sector'")

    def test_a_row_with_an_extra_cell(self):
        self.refused("data/Tx0.csv", 5, "-1,-2,-3,-4,-5,-6,-7,2", "data/Tx0.csv:5: 8 columns (B1-B6, Sector), expected 7")

    def test_a_non_numeric_rssi(self):
        self.refused("data/Tx0.csv", 4, "-64,-67,,-73,-76,-79,1", "data/Tx0.csv:4:3: RSSI '' is not a number")

    def test_an_unknown_sector(self):
        self.refused("data/Tx0.csv", 85, "-81,-84,-87,-90,-93,-96,29", "data/Tx0.csv:85:7: sector 29 is not a code 1-28")

    def test_a_sector_short_of_rows(self):
        self.refused("data/Tx0.csv", 85, "-81,-84,-87,-90,-93,-96,27",
                     "every sector must have 3 rows; sector 27: 4, sector 28: 2")

    def test_an_unknown_beacon_floor(self):
        self.refused("metadata/beacon_metadata.csv", 3, "B2;M;BLE;basement;x",
                     "metadata/beacon_metadata.csv:3:4: floor 'basement' is neither ground_floor nor first_floor")

    def test_sector_metadata_that_disagrees(self):
        self.refused("metadata/sector_metadata.csv", 2, "1A;ground_floor;x", "do not match codes 1-28")


if __name__ == "__main__":
    unittest.main()
