import CPostgres

/// The type OIDs this package sends and reads (`pg_type.oid`, fixed for built-in types).
package struct PostgresType: RawRepresentable, Hashable, Sendable {
    package var rawValue: Oid
    package init(rawValue: Oid) { self.rawValue = rawValue }

    package static let bool = PostgresType(rawValue: 16)
    package static let bytea = PostgresType(rawValue: 17)
    package static let int8 = PostgresType(rawValue: 20)
    package static let int2 = PostgresType(rawValue: 21)
    package static let int4 = PostgresType(rawValue: 23)
    package static let text = PostgresType(rawValue: 25)
    package static let oid = PostgresType(rawValue: 26)
    package static let json = PostgresType(rawValue: 114)
    package static let varchar = PostgresType(rawValue: 1043)
    package static let name = PostgresType(rawValue: 19)
    /// "Let the server infer it": for text-format parameters of any type.
    package static let unspecified = PostgresType(rawValue: 0)
    package static let int8Array = PostgresType(rawValue: 1016)
    package static let textArray = PostgresType(rawValue: 1009)
    package static let byteaArray = PostgresType(rawValue: 1001)
    package static let jsonArray = PostgresType(rawValue: 199)

    /// The array type whose elements are of this type, for the types arrays are sent of.
    var arrayType: PostgresType? {
        switch self {
        case .int8: .int8Array
        case .text: .textArray
        case .bytea: .byteaArray
        case .json: .jsonArray
        default: nil
        }
    }
}
