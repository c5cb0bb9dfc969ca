import Foundation
import PostgresNIO

/// What is wrong with a PostgreSQL URL.
public struct PostgresURLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A sentence naming the problem.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The problem and the expected shape.
    public var description: String {
        "\(message); expected postgres://user:password@host:port/database[?sslmode=disable|prefer|require|verify-full]"
    }
}

/// The parts of a `postgres://` URL, and the URL with its password hidden for messages
/// (``redacted(_:)``).
public struct PostgresURL: Hashable, Sendable {
    /// How to use TLS, as libpq's `sslmode` says.
    enum SSLMode: String, Sendable, CaseIterable {
        case disable, prefer, require
        case verifyFull = "verify-full"
    }

    var host: String
    var port: Int
    var username: String
    var password: String?
    var database: String
    var sslMode: SSLMode

    init(_ text: String) throws(PostgresURLError) {
        guard let components = URLComponents(string: text) else {
            throw PostgresURLError("the database URL \"\(Self.redacted(text))\" cannot be parsed")
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw PostgresURLError("the database URL must start with postgres:// or postgresql://, not \"\(components.scheme ?? "")\"")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresURLError("the database URL has no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresURLError("the database URL has no user name (postgres://USER:password@host/database)")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw PostgresURLError("the database URL's port \(port) is not between 1 and 65535")
        }
        let database = String(components.path.drop { $0 == "/" })
        guard !database.isEmpty, !database.contains("/") else {
            throw PostgresURLError("the database URL names no database (postgres://user:password@host:port/DATABASE)")
        }
        var sslMode = SSLMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let value = item.value, let mode = SSLMode(rawValue: value) else {
                    throw PostgresURLError("the database URL's sslmode \"\(item.value ?? "")\" is not one of "
                        + SSLMode.allCases.map(\.rawValue).joined(separator: ", "))
                }
                sslMode = mode
            default:
                throw PostgresURLError("the database URL's parameter \"\(item.name)\" is not supported (only sslmode is)")
            }
        }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        self.port = port
        self.username = user
        self.password = components.password
        self.database = database
        self.sslMode = sslMode
    }

    /// The URL with its password replaced by `***`, for messages and logs; text that has no
    /// password (or is not a URL) is returned as it is.
    ///
    /// ```swift
    /// PostgresURL.redacted("postgres://app:secret@db:5432/app")  // "postgres://app:***@db:5432/app"
    /// ```
    public static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let schemeEnd = text.range(of: "://")?.upperBound,
              let colon = text[schemeEnd..<at].firstIndex(of: ":")
        else { return text }
        return String(text[..<text.index(after: colon)]) + "***" + String(text[at...])
    }

    var clientConfiguration: PostgresClient.Configuration {
        var lenient = TLSConfiguration.makeClientConfiguration()
        lenient.certificateVerification = .none  // libpq's prefer and require do not check the certificate
        let tls: PostgresClient.Configuration.TLS = switch sslMode {
        case .disable: .disable
        case .prefer: .prefer(lenient)
        case .require: .require(lenient)
        case .verifyFull: .require(.makeClientConfiguration())
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: username, password: password,
                                                         database: database, tls: tls)
        // No statement may run longer than this: a query that would (a bug, a missing index, a
        // locked row never released) fails with a 503 instead of holding a connection forever.
        configuration.options.additionalStartupParameters = [("statement_timeout", String(Self.statementTimeoutMilliseconds))]
        return configuration
    }

    /// The longest a statement may run, in milliseconds (30 s; migrations are exempt).
    static let statementTimeoutMilliseconds = 30_000
}
