// libFuzzer entry point over the three table parsers. Built by `make fuzz`
// into one module with Sources/LprojPaths, LprojTables and LprojFormats (no import needed).
//
// Oracles beyond "no crash, no hang, no leak":
// - a .strings text we accept without errors round-trips through the writer;
// - where PropertyListSerialization accepts a text .strings file and we
//   report no error, both give the same values;
// - a binary plist we read without error, Foundation reads to the same values;
// - a text table parsed again over its own keys (`SharedKeys`, as lprojd
//   holds a localization) is the same table, in the same order, and its
//   image reads back the same.
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTables(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count))
    let strings = StringsFile(bytes: bytes, path: "fuzz.strings")
    _ = StringsDictFile(bytes: bytes, path: "fuzz.stringsdict")
    _ = StringCatalogFile(bytes: bytes, path: "fuzz.xcstrings")
    for diagnostic in strings.diagnostics {
        precondition(diagnostic.line >= 1 && diagnostic.column >= 1, "bad position \(diagnostic)")
    }
    if strings.form == .binaryPropertyList, !strings.diagnostics.containsErrors {
        let theirs = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: String]
        let ours = strings.table.entries.compactMapValues(\.text)
        precondition(ours.count != strings.table.count || theirs == ours, "binary plist read differently from Foundation")
    }
    if case .text = strings.form, !strings.table.isEmpty {
        let shared = StringsFile(bytes: bytes, path: "fuzz.strings", limits: TableLimits(), sharing: [SharedKeys(strings.table)]).table
        precondition(shared == strings.table && shared.keys == strings.table.keys, "parsed over its own keys, another table")
        precondition((try? TableImage.table(in: TableImage.encode(shared))) == strings.table, "the image of a table over shared keys differs")
    }
    guard !strings.diagnostics.containsErrors, case .text = strings.form else { return 0 }
    if let text = try? StringsWriter.text(for: strings.table) {
        let again = StringsFile(bytes: Array(text.utf8), path: "again.strings")
        precondition(!again.diagnostics.containsErrors, "written text does not parse: \(again.diagnostics)")
        precondition(again.table == strings.table, "round trip changed the table")
    }
    // BOM-less UTF-16 is where we deliberately differ (we read it, with a
    // warning; Foundation misreads or refuses it): no comparison there.
    let guessedUTF16 = strings.diagnostics.contains { $0.message.hasPrefix("file is UTF-16") }
    if !bytes.isEmpty, !guessedUTF16,
       let theirs = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: String] {
        let ours = strings.table.entries.compactMapValues(\.text)
        // Keys that differ in bytes but not as Swift strings (é and e + ◌́)
        // are two entries to both parsers but one dictionary key: skip those.
        guard ours.count == strings.table.count else { return 0 }
        precondition(ours == theirs, "values differ from PropertyListSerialization: ours \(ours) theirs \(theirs)")
    }
    return 0
}
