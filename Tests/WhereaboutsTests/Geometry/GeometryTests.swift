import Testing
@testable import Whereabouts

/// The halls of the Hekaerge seed's sample code.
private let hall1 = GeoCoordinate(latitude: 41.353485, longitude: 2.129052)
private let hall2 = GeoCoordinate(latitude: 41.354400, longitude: 2.129854)
private let hall3 = GeoCoordinate(latitude: 41.355028, longitude: 2.131205)
private let hall4 = GeoCoordinate(latitude: 41.354753, longitude: 2.13336)
private let hall8 = GeoCoordinate(latitude: 41.3559, longitude: 2.136817)

@Suite("Geometry")
struct GeometryTests {
    // Expected values computed independently in Python: the haversine formula with R = 6 371 008.8 m,
    // and the WGS84 geodesic (geographiclib's Geodesic.WGS84.Inverse) for the ellipsoidal truth.
    @Test("great-circle distances between the Hekaerge halls", arguments: [
        (hall1, hall2, 121.7902, 121.7828),
        (hall1, hall8, 701.5487, 702.9729),
        (hall3, hall4, 182.4511, 182.9033),
    ])
    func greatCircle(a: GeoCoordinate, b: GeoCoordinate, haversine: Double, geodesic: Double) {
        #expect(abs(a.distance(to: b) - haversine) < 1e-3)
        #expect(abs(b.distance(to: a) - haversine) < 1e-3)
        // The sphere stays within 0.5 % of the ellipsoid.
        #expect(abs(a.distance(to: b) - geodesic) / geodesic < 0.005)
    }

    @Test func distanceToItselfIsZero() {
        #expect(hall1.distance(to: hall1) == 0)
    }

    // geographiclib: from (41.3550, 2.1320) to hall 8, s12 = 413.30 m at azimuth 76.07°; east = s·sin(azi)
    // = 403.0913 m, north = s·cos(azi) = 99.9659 m (the local tangent plane agrees to < 1 mm at this range).
    @Test func localFrameMatchesGeodesicOffsets() {
        let frame = LocalFrame(origin: GeoCoordinate(latitude: 41.3550, longitude: 2.1320))
        let p = frame.planarPoint(for: hall8)
        #expect(abs(p.x - 403.0913) < 0.002)
        #expect(abs(p.y - 99.9659) < 0.002)
        let q = frame.planarPoint(for: hall1)
        #expect(abs(q.x - (-246.7007)) < 0.002)
        #expect(abs(q.y - (-168.2529)) < 0.002)
    }

    @Test func bearingRotatesTheFrameClockwise() {
        // With bearing 90° the local +y axis points east, so a point due east lies on +y and one due north on −x.
        let origin = GeoCoordinate(latitude: 41.3550, longitude: 2.1320)
        let frame = LocalFrame(origin: origin, bearing: 90)
        let east = frame.planarPoint(for: GeoCoordinate(latitude: 41.3550, longitude: 2.1330))
        #expect(abs(east.x) < 0.01)
        #expect(east.y > 83 && east.y < 84)   // 0.001° of longitude at 41.355° ≈ 83.6 m
        let north = frame.planarPoint(for: GeoCoordinate(latitude: 41.3560, longitude: 2.1320))
        #expect(abs(north.y) < 0.01)
        #expect(north.x < -111 && north.x > -111.1)   // 0.001° of latitude ≈ 111.03 m
    }

    @Test("local ↔ WGS84 round trip", arguments: [0.0, 30.0, -135.0])
    func roundTrip(bearing: Double) {
        let frame = LocalFrame(origin: GeoCoordinate(latitude: 41.3550, longitude: 2.1320), bearing: bearing)
        for coordinate in [hall1, hall2, hall8] {
            let back = frame.coordinate(for: frame.planarPoint(for: coordinate))
            #expect(back.distance(to: coordinate) < 0.001)
        }
    }

    @Test func feetFrameScalesByTheFoot() {
        let metres = LocalFrame(origin: GeoCoordinate(latitude: 41.3550, longitude: 2.1320))
        let feet = LocalFrame(origin: GeoCoordinate(latitude: 41.3550, longitude: 2.1320), metresPerUnit: 0.3048)
        let m = metres.planarPoint(for: hall8), f = feet.planarPoint(for: hall8)
        #expect(abs(f.x * 0.3048 - m.x) < 1e-6)
        #expect(abs(f.y * 0.3048 - m.y) < 1e-6)
    }

    @Test func planarAndSpatialDistances() {
        // 3-4-5 and 2-3-6-7 right triangles.
        #expect(PlanarPoint(x: 0, y: 0).distance(to: PlanarPoint(x: 3, y: 4)) == 5)
        #expect(SpatialPoint(x: 1, y: 1, z: 1).distance(to: SpatialPoint(x: 3, y: 4, z: 7)) == 7)
    }
}
