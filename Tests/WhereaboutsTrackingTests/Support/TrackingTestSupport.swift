import Foundation
import Whereabouts
import WhereaboutsServer
import WhereaboutsServerTesting
import WhereaboutsTracking

/// A temporary outbox path, removed with its files by ``remove()``.
struct TemporaryOutbox {
    let folder = NSTemporaryDirectory() + "whereabouts-outbox-tests-" + UUID().uuidString
    var path: String { folder + "/outbox.sqlite" }

    func open() throws -> Outbox { try Outbox(path: path) }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}

/// A fix for tests: x/y in metres, or latitude/longitude.
func fix(_ time: Double, x: Double, y: Double, accuracy: Double = 2, floor: Int? = nil, device: String? = "phone",
         latitude: Double? = nil, longitude: Double? = nil) -> Fix {
    let coordinate = latitude.flatMap { lat in longitude.map { GeoCoordinate(latitude: lat, longitude: $0) } }
    return Fix(time: time, device: device, point: SpatialPoint(x: x, y: y, z: 0), floor: floor, accuracy: accuracy,
               coordinate: coordinate, method: "test")
}
