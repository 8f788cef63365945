import SegueCore

/// The one place the store turns JSON values into column text and back, with SegueCore's
/// deterministic serializer (so export, publish and storage agree byte for byte) and strict parser.
package enum StoreJSON {
    package static func encode(_ value: JSON) -> String { value.serialized() }

    package static func decode(_ text: String) throws(StoreError) -> JSON {
        do throws(JSONError) {
            return try JSON.parse(text)
        } catch {
            throw StoreError(kind: .invalidData, message: "Stored text is not valid JSON: \(error.description).")
        }
    }

    /// Parses UTF-8 bytes in place (a column's text, without copying it into a `String` first).
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> JSON {
        do throws(JSONError) {
            return try JSON.parse(bytes)
        } catch {
            throw StoreError(kind: .invalidData, message: "Stored text is not valid JSON: \(error.description).")
        }
    }
}
