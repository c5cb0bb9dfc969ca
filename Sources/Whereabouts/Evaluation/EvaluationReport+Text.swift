import Foundation

extension EvaluationReport {
    /// A short human-readable block: counts, errors with their unit, the share inside the
    /// accuracy radius, floor and place accuracy, and the throughput; lines that do not apply are
    /// left out (a classifier's report has no error or radius lines; a rooms report has only its
    /// counts and places).
    ///
    /// ```
    /// uji-lib — centroid
    ///   scans      1080, located 1080 (100 %)
    ///   error      mean 1.516 m, median 1.293 m, p75 1.9 m, p95 3.305 m, max 7.02 m
    ///   in radius  64.2 % of located scans inside their accuracy radius (it promises 68 %)
    ///   speed      1,234,567 fixes/s (solver only)
    ///
    /// room — default rooms
    ///   scans      102, located 102 (100 %)
    ///   place      92.2 % right by the place holding most of the fix, 102 predicted (3 the nearest place)
    ///   point      85.3 % right by the place containing the fix's point, 95 predicted
    /// ```
    public var summary: String {
        if kind == .rooms { return roomsSummary }
        let unit = units
        let isClassifier = kind == .classifier
        var lines = ["\(dataset) — \(algorithm)\(isClassifier ? " classifier" : "")"]
        let share = scans > 0 ? " (\(Self.percent(Double(located) / Double(scans))))" : ""
        lines.append("  scans      \(scans), \(isClassifier ? "classified" : "located") \(located)\(share)")
        // A classifier gives no position: no error line.
        if let error {
            lines.append("  error      mean \(Self.decimal(error.mean)) \(unit), median \(Self.decimal(error.median)) \(unit), "
                         + "p75 \(Self.decimal(error.p75)) \(unit), p95 \(Self.decimal(error.p95)) \(unit), max \(Self.decimal(error.max)) \(unit)")
        } else if !isClassifier {
            lines.append("  error      no located scan with a true position")
        }
        if let accuracyCoverage {
            lines.append("  in radius  \(Self.percent(accuracyCoverage)) of located scans inside their accuracy radius (it promises 68 %)")
        }
        if let floorAccuracy { lines.append("  floor      \(Self.percent(floorAccuracy)) right") }
        if let placeAccuracy {
            lines.append("  place      \(Self.percent(placeAccuracy)) right\(placeLocated.map { ", \($0) predicted" } ?? "")")
        }
        if let fixesPerSecond {
            lines.append("  speed      \(Self.grouped(fixesPerSecond)) "
                         + (isClassifier ? "classifications/s (classifier only)" : "fixes/s (solver only)"))
        }
        return lines.joined(separator: "\n")
    }

    /// The summary of a rooms report: its counts and the place lines that apply.
    private var roomsSummary: String {
        var lines = ["\(dataset) — \(algorithm) rooms"]
        let share = scans > 0 ? " (\(Self.percent(Double(located) / Double(scans))))" : ""
        lines.append("  scans      \(scans), located \(located)\(share)")
        if let placeAccuracy {
            let nearest = nearestPlaces.flatMap { $0 > 0 ? " (\($0) the nearest place)" : nil } ?? ""
            lines.append("  place      \(Self.percent(placeAccuracy)) right by the place holding most of the fix"
                         + "\(placeLocated.map { ", \($0) predicted" } ?? "")\(nearest)")
        }
        if let pointPlaceAccuracy {
            lines.append("  point      \(Self.percent(pointPlaceAccuracy)) right by the place containing the fix's point"
                         + "\(pointPlaceLocated.map { ", \($0) predicted" } ?? "")")
        }
        if let monitoredPlaceAccuracy {
            lines.append("  monitored  \(Self.percent(monitoredPlaceAccuracy)) right by the place monitor fed with those places (its hysteresis)")
        }
        if let monitoredRoomChanges, let trueRoomChanges {
            let ratio = trueRoomChanges > 0 ? String(format: " (%.2f×)", Double(monitoredRoomChanges) / Double(trueRoomChanges)) : ""
            lines.append("  changes    \(monitoredRoomChanges) by the monitor against \(trueRoomChanges) in the truth\(ratio)")
        }
        return lines.joined(separator: "\n")
    }

    /// An aligned text table comparing reports, one row each: algorithm, scans, located, mean,
    /// median, p75, p95, max (in the reports' unit), within-radius %, floor accuracy and fixes/s.
    /// A value that does not apply shows as `–`.
    ///
    /// ```
    /// algorithm  scans  located   mean  median    p75    p95    max  within-radius %  floor acc.  fixes/s
    /// centroid    1080     1080  1.516   1.293  1.900  3.305  7.020             64.2       100.0  1234567
    /// ```
    public static func table(_ reports: [EvaluationReport]) -> String {
        let header = ["algorithm", "scans", "located", "mean", "median", "p75", "p95", "max",
                      "within-radius %", "floor acc.", "fixes/s"]
        func fixed(_ value: Double?, _ digits: Int) -> String {
            guard let value, value.isFinite else { return "–" }
            return String(format: "%.\(digits)f", value)
        }
        let rows: [[String]] = reports.map { report in
            [report.algorithm, String(report.scans), String(report.located),
             fixed(report.error?.mean, 3), fixed(report.error?.median, 3), fixed(report.error?.p75, 3),
             fixed(report.error?.p95, 3), fixed(report.error?.max, 3),
             fixed(report.accuracyCoverage.map { $0 * 100 }, 1), fixed(report.floorAccuracy.map { $0 * 100 }, 1),
             fixed(report.fixesPerSecond, 0)]
        }
        var widths = header.map { $0.count }
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column == 0 {
                    text += cell + padding
                } else {
                    text += "  " + padding + cell
                }
            }
            return text
        }
        var lines = [line(header)]
        lines += rows.map(line)
        if let unit = reports.first?.units { lines.append("errors in \(unit); floor acc. in %") }
        return lines.joined(separator: "\n")
    }

    /// A number with at most three decimals, trailing zeros dropped.
    static func decimal(_ value: Double) -> String {
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }

    /// A share 0–1 as a percentage with one decimal, trailing `.0` dropped: `0.642` → `64.2 %`.
    static func percent(_ share: Double) -> String {
        decimal((share * 1000).rounded() / 10) + " %"
    }

    /// A whole number with thousands separated by commas: `1234567` → `1,234,567`.
    static func grouped(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e15 else { return "–" }
        let digits = String(Int64(value.rounded()).magnitude)
        var out = ""
        for (i, digit) in digits.enumerated() {
            if i > 0, (digits.count - i) % 3 == 0 { out += "," }
            out.append(digit)
        }
        return value < 0 ? "-" + out : out
    }
}
