/// Exit statuses every command line of the package shares (sysexits.h for usage). A tool adds its
/// own as further constants (`segue`'s 2, 3, 69 and 74).
package struct ExitCode: RawRepresentable, Hashable, Sendable {
    package var rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    package static let success = ExitCode(0)
    /// The work was refused or found a problem.
    package static let failure = ExitCode(1)
    /// The command line does not parse (`EX_USAGE`).
    package static let usage = ExitCode(64)
}
