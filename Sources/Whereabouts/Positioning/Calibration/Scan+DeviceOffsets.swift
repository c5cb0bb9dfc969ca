import Foundation

extension Scan {
    /// The scan with `offset` (dB) subtracted from each valid reading: its receiver's RSSI brought
    /// to the venue calibration (``CalibrationResult/deviceOffsets``). A corrected reading stays a
    /// measurement: it is held below 0 dBm (at −0.5 at most). Invalid readings are left as they are.
    func correctedForDeviceOffset(_ offset: Double) -> Scan {
        guard offset != 0, offset.isFinite else { return self }
        var scan = self
        for index in scan.readings.indices where scan.readings[index].isValid {
            scan.readings[index].rssi = Self.corrected(scan.readings[index].rssi, offset: offset)
        }
        return scan
    }

    /// `rssi − offset`, held at −0.5 dBm at most so that it stays a valid reading.
    static func corrected(_ rssi: Double, offset: Double) -> Double {
        guard offset.isFinite else { return rssi }
        return min(rssi - offset, -0.5)
    }
}
