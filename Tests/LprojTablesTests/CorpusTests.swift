import Foundation
@testable import LprojFormats
import XCTest
@testable import LprojTables

/// Our values equal PropertyListSerialization's on every corpus file it accepts.
final class CorpusTests: XCTestCase {
    func testStringsValuesEqualPropertyListSerialization() throws {
        let corpus = try corpusDirectory()
        let paths = files(under: corpus, extensions: ["strings"])
        XCTAssertGreaterThan(paths.count, 600)
        var compared = 0
        var differences: [String] = []
        for url in paths {
            let data = try Data(contentsOf: url)
            let ours = StringsFile(bytes: data, path: url.path)
            guard let theirs = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: String] else {
                // CoreFoundation refused it: we must have said why.
                XCTAssertTrue(ours.diagnostics.containsErrors, "\(url.path): CoreFoundation rejects it, we found no error")
                continue
            }
            compared += 1
            if ours.diagnostics.containsErrors {
                differences.append("\(url.path): we report errors CoreFoundation does not see: \(ours.diagnostics.filter { $0.severity == .error }.prefix(3))")
                continue
            }
            let values = strings(ours.table)
            if values != theirs {
                let keys = Set(values.keys).symmetricDifference(theirs.keys).prefix(3)
                let changed = values.keys.filter { theirs[$0] != nil && theirs[$0] != values[$0] }.prefix(3)
                differences.append("\(url.path): keys differ \(Array(keys)), values differ \(Array(changed))")
            }
        }
        XCTAssertEqual(differences, [])
        XCTAssertGreaterThan(compared, 600)
    }
}
