import Testing
import AsyncHTTPClient
@testable import WhereaboutsServer
