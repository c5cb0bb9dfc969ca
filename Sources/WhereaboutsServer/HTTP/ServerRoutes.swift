import Hummingbird

/// A group of the server's routes that adds itself to a router, in the manner of Hummingbird's
/// `RouteCollection`: each group is a value holding what its handlers need.
/// ``makeServerApplication(configuration:store:liveFeed:logger:onServerRunning:)`` builds the
/// groups and adds each one.
///
/// ```swift
/// let router = Router(context: ServerRequestContext.self)
/// MapPage(venue: nil).addRoutes(to: router)
/// OpenAPIRoutes(logger: logger).addRoutes(to: router)  // last: it checks the routes above
/// ```
protocol ServerRoutes: Sendable {
    /// Adds the group's routes to `router`.
    func addRoutes(to router: Router<ServerRequestContext>)
}
