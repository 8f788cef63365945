import CPostgres

/// The type OIDs this package sends and reads (`pg_type.oid`, fixed for built-in types).
public struct PostgresType: RawRepresentable, Hashable, Sendable {
    public var rawValue: Oid
    public init(rawValue: Oid) { self.rawValue = rawValue }

    public static let bool = PostgresType(rawValue: 16)
    public static let bytea = PostgresType(rawValue: 17)
    public static let int8 = PostgresType(rawValue: 20)
    public static let int2 = PostgresType(rawValue: 21)
    public static let int4 = PostgresType(rawValue: 23)
    public static let text = PostgresType(rawValue: 25)
    public static let oid = PostgresType(rawValue: 26)
    public static let json = PostgresType(rawValue: 114)
    public static let varchar = PostgresType(rawValue: 1043)
    public static let name = PostgresType(rawValue: 19)
    /// "Let the server infer it": for text-format parameters of any type.
    public static let unspecified = PostgresType(rawValue: 0)
    public static let int8Array = PostgresType(rawValue: 1016)
    public static let textArray = PostgresType(rawValue: 1009)
    public static let byteaArray = PostgresType(rawValue: 1001)
    public static let jsonArray = PostgresType(rawValue: 199)

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
