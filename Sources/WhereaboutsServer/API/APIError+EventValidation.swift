import Whereabouts

extension APIError {
    /// The API's answer to an event that ``EventValidation`` refused: 400 with
    /// `invalid-request-structure` when the value is not an object, `invalid-parameters-format`
    /// when a field is wrong, and the validation's message either way.
    init(_ error: EventValidationError) {
        switch error.kind {
        case .notAnObject: self = APIError(.invalidRequestStructure, error.message)
        case .invalidField: self = APIError(.invalidParameters, error.message)
        }
    }

    /// Runs `validation`, reporting its ``EventValidationError`` as the API error that stands for it.
    static func validating<Value>(_ validation: () throws(EventValidationError) -> Value) throws(APIError) -> Value {
        do {
            return try validation()
        } catch {
            throw APIError(error)
        }
    }
}
