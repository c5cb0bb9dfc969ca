import Foundation
import Whereabouts

/// How `whereabouts watch --why` writes a ``PlaceChangeExplanation``: a line of text under the
/// change, or a `"why"` member of its JSON line.
struct PlaceChangeText: Sendable {
    /// How beacons are named.
    let names: BeaconNames

    /// `  why: 3 votes for kitchen over 2 s (the last: kitchen 0.72); fix 12.3, 4.5 ±2.1 m floor 0; heard b1 -61, b2 -70 dBm`
    func line(_ explanation: PlaceChangeExplanation) -> String {
        var parts = [rule(explanation)]
        if let fix = explanation.fix {
            parts.append("fix \(fix.point.x.formatted(2)), \(fix.point.y.formatted(2)) ±\(fix.accuracy.formatted(1)) m"
                         + (fix.floor.map { " floor \($0)" } ?? ""))
        }
        if !explanation.readings.isEmpty {
            parts.append("heard " + explanation.readings.map { "\(names.name(of: $0.beacon)) \($0.rssi.formatted(0))" }
                .joined(separator: ", ") + " dBm")
        }
        return "  why: " + parts.joined(separator: "; ")
    }

    /// The rule and the estimate that made the change, in words.
    private func rule(_ explanation: PlaceChangeExplanation) -> String {
        let change = explanation.change
        let last = explanation.estimate.map { " (the last: \(Self.place($0.place)) \($0.probability.formatted(2)))" } ?? ""
        switch change.rule {
        case .votes(let count, let firstVote):
            return "\(count.counted("vote")) for \(Self.place(change.to)) over \((change.time - firstVote).formatted(1)) s" + last
        case .belief(let probability):
            return "the track's belief held \(probability.formatted(2)) of \(Self.place(change.to))"
        case .timeout(let lastObservation):
            return "nothing located for \((change.time - lastObservation).formatted(1)) s after \(lastObservation.formatted(3))"
        }
    }

    /// A place's id, or "no place".
    private static func place(_ id: String?) -> String { id ?? "no place" }

    /// `{"rule", "from", "to", …the rule's values, "estimate", "fix", "readings"}`
    func json(_ explanation: PlaceChangeExplanation) -> JSONValue {
        let change = explanation.change
        func optional(_ id: String?) -> JSONValue { id.map(JSONValue.string) ?? .null }
        var members: [(key: String, value: JSONValue)]
        switch change.rule {
        case .votes(let count, let firstVote):
            members = [("rule", .string("votes")), ("votes", .number(Double(count))), ("firstVote", .number(firstVote))]
        case .belief(let probability):
            members = [("rule", .string("belief")), ("probability", .number(probability))]
        case .timeout(let lastObservation):
            members = [("rule", .string("timeout")), ("lastObservation", .number(lastObservation))]
        }
        members += [("from", optional(change.from)), ("to", optional(change.to))]
        if let estimate = explanation.estimate {
            members.append(("estimate", .object([("place", optional(estimate.place)), ("probability", .number(estimate.probability)),
                                                 ("belief", .bool(estimate.isBelief))])))
        }
        if let fix = explanation.fix {
            var fixMembers: [(key: String, value: JSONValue)] = [("x", .number(fix.point.x)), ("y", .number(fix.point.y))]
            if let floor = fix.floor { fixMembers.append(("floor", .number(Double(floor)))) }
            fixMembers.append(("accuracy", .number(fix.accuracy)))
            members.append(("fix", .object(fixMembers)))
        }
        members.append(("readings", .array(explanation.readings.map {
            .object([("beacon", .string(names.name(of: $0.beacon))), ("rssi", .number($0.rssi))])
        })))
        return .object(members)
    }
}
