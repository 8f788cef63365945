/// The release of segued and segue, in one place: `ping` reports it, `--version` prints it.
public enum SegueVersion {
    public static let current = "0.1.0"
}
