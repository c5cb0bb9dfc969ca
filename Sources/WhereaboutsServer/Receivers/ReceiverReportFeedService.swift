import Foundation
import Logging
import ServiceLifecycle
import Whereabouts

/// A feed run for the server's lifetime: its reports go to the tag tracking as its user's, and
/// those refused (a receiver the venue does not list) are logged — the first ten, then every
/// thousandth.
struct ReceiverReportFeedService: Service {
    let feed: any ReceiverReportFeed
    let tracking: TagTracking
    let logger: Logger

    func run() async throws {
        let refusals = LockedValue(0)
        let (feed, tracking, logger) = (feed, tracking, logger)
        logger.notice("Reading receivers' reports", metadata: ["feed": "\(feed.name)", "user": "\(feed.user)"])
        try await cancelWhenGracefulShutdown {
            try await feed.run { reports in
                let outcome = await tracking.take(reports, asUser: feed.user, source: feed.name)
                for refusal in outcome.refused {
                    let count = refusals.withValue { count in count += 1; return count }
                    if count <= 10 || count % 1_000 == 0 {
                        logger.warning("A report was refused (\(count) so far): \(refusal.message)", metadata: ["feed": "\(feed.name)"])
                    }
                }
            }
        }
        // A feed that ended leaves the server running until it stops.
        if !Task.isCancelled {
            logger.notice("The feed of receivers' reports ended", metadata: ["feed": "\(feed.name)"])
            try? await gracefulShutdown()
        }
    }
}
