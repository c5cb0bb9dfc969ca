/// Why ``EventValidation`` refused an event's JSON: the field at fault and a sentence saying what
/// was expected.
///
/// It knows nothing of HTTP; the API layer reports it as a 400 in Pryv's shape
/// (`APIError.init(_:)`): `invalid-request-structure` when the value is not an object at all,
/// `invalid-parameters-format` otherwise.
struct EventValidationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of mistake it is.
    enum Kind: Hashable, Sendable {
        /// The event or update is not a JSON object.
        case notAnObject
        /// A field is missing, unknown, or has the wrong type or value.
        case invalidField
    }

    /// What kind of mistake it is.
    var kind: Kind
    /// The field at fault, as a path such as `content.latitude`; `nil` when the whole value is.
    var field: String?
    /// A sentence for people saying what was wrong and what was expected.
    var message: String

    /// Creates an error.
    init(kind: Kind, field: String?, message: String) {
        self.kind = kind
        self.field = field
        self.message = message
    }

    /// The value is not a JSON object.
    static func notAnObject(_ message: String) -> EventValidationError {
        EventValidationError(kind: .notAnObject, field: nil, message: message)
    }

    /// `field` is missing, unknown, or has the wrong type or value.
    static func invalidField(_ field: String, _ message: String) -> EventValidationError {
        EventValidationError(kind: .invalidField, field: field, message: message)
    }

    /// The message.
    var description: String { message }
}
