/// The release of segued and segue, in one place: `ping` reports it, `--version` prints it.
package enum SegueVersion {
    package static let current = "0.3.1"
}
