import Whereabouts

/// How a fix is written as an event's content (the library's `PositionContent`, also what the
/// server writes for the tags it locates).
public typealias PositionContent = Whereabouts.PositionContent

extension TrackedEvent {
    /// The position event of a fix (see ``PositionContent``): `position/wgs84` when the fix has
    /// latitude and longitude, `position/local` otherwise, at `time` (default: the fix's).
    ///
    /// ```swift
    /// let event = TrackedEvent(position: fix, id: "p1", streamIds: ["position"])
    /// ```
    public init(position fix: Fix, id: String, streamIds: [String], time: Double? = nil, duration: Double = 0,
                metresPerUnit: Double = 1, description: String? = nil) {
        self.init(id: id, streamIds: streamIds, time: time ?? fix.time, duration: duration,
                  type: fix.coordinate == nil ? PositionContent.localType : PositionContent.wgs84Type,
                  content: PositionContent.content(of: fix, metresPerUnit: metresPerUnit), description: description,
                  clientData: PositionContent.clientData(of: fix))
    }
}
