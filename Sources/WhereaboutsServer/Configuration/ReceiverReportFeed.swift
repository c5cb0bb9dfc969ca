import Foundation
import Whereabouts

/// A way in for receivers' reports besides `POST /{username}/receivers/reports`: what an MQTT
/// broker's ESPresense nodes publish (`whereabouts serve --mqtt`), say. The server runs each
/// feed for its lifetime, fuses the reports it reads as ``user``'s, stores each tag's fixes and
/// places as that user's events (as for reports over HTTP), and hands the same outputs back to
/// the feed (to publish them where they came from).
///
/// ```swift
/// var configuration = ServerConfiguration(host: "127.0.0.1", port: 8080)
/// configuration.venue = venue                       // it lists the receivers
/// configuration.reportFeeds = [myFeed]              // myFeed.user == "alice"
/// ```
public protocol ReceiverReportFeed: Sendable {
    /// The user whose tags the reports locate, and whose events their fixes and places become.
    var user: String { get }
    /// The feed's name, for the log and as the events' author (`createdBy`).
    var name: String { get }
    /// Reads reports until the task is cancelled (the server stops) or the source ends (the
    /// server runs on), handing each batch to `deliver`. An error thrown stops the server with
    /// it: throw only what retrying cannot mend (a refused password), and reconnect on
    /// everything else.
    func run(deliver: @escaping @Sendable ([Scan]) async -> Void) async throws
    /// The outputs of ``user``'s tags as they fall due: fixes, and places entered and left.
    func publish(_ outputs: [TagPipeline.Output]) async
}
