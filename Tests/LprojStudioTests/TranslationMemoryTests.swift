@testable import LprojStudio
import XCTest

/// The translation memory in process: exact matches ranked by how many
/// units hold them, the unit edited left out, fuzzy ones ranked by
/// similarity with what differs, scripts written without spaces, and every
/// change of a source text or a translation followed.
final class TranslationMemoryTests: XCTestCase {
    private func unit(_ key: String, bundle: String = "/app", table: String = "Localizable") -> TranslationMemory.Unit {
        TranslationMemory.Unit(bundle: bundle, table: table, key: key)
    }

    private func memory(_ entries: [(String, String, String?)], language: String = "fr") -> TranslationMemory {
        var memory = TranslationMemory()
        for (key, source, translation) in entries {
            memory.setSource(source, of: unit(key))
            memory.setTranslation(translation, of: unit(key), language: language)
        }
        return memory
    }

    func testTheSameSourceTextElsewhereComesFirstTheMostUsedTranslationFirst() {
        let memory = memory([("a", "Delete", "Supprimer"), ("b", "Delete", "Effacer"), ("c", "Delete", "Effacer"), ("d", "Delete", nil),
                             ("e", "Delete files", "Supprimer les fichiers"), ("editing", "Delete", "Supprimer")])
        let offers = memory.suggestions(for: "Delete", language: "fr", excluding: unit("editing"))
        XCTAssertEqual(offers.map(\.text), ["Effacer", "Supprimer", "Supprimer les fichiers"])
        XCTAssertEqual(offers.map(\.uses), [2, 1, 1], "the unit edited is left out; a unit without a translation offers nothing")
        XCTAssertEqual(offers[0].unit, unit("b"), "the first unit holding it")
        XCTAssertEqual(offers[0].similarity, 1)
        XCTAssertEqual(offers[2].similarity, 1 - 6 / 12.0, accuracy: 1e-9)
        XCTAssertTrue(memory.suggestions(for: "Delete", language: "de").isEmpty, "no German")
    }

    func testFuzzyMatchesAreRankedAndShowWhatDiffers() throws {
        let memory = memory([("a", "Delete 3 files from the server?", "Supprimer 3 fichiers du serveur ?"),
                             ("b", "Delete the server?", "Supprimer le serveur ?"),
                             ("c", "Rename the file", "Renommer le fichier")])
        let offers = memory.suggestions(for: "Delete 3 photos from the server?", language: "fr")
        XCTAssertEqual(offers.first?.text, "Supprimer 3 fichiers du serveur ?")
        XCTAssertGreaterThan(try XCTUnwrap(offers.first?.similarity), 0.75)
        XCTAssertEqual(offers.first?.differences, [
            .init(kind: .same, text: "Delete 3 "), .init(kind: .other, text: "files "), .init(kind: .asked, text: "photos "),
            .init(kind: .same, text: "from the server?"),
        ])
        XCTAssertFalse(offers.contains { $0.text == "Renommer le fichier" }, "below the threshold")
    }

    func testScriptsWithoutSpacesMatchByPairsOfCharacters() {
        let memory = memory([("a", "删除所有文件", "Supprimer tous les fichiers")])
        XCTAssertEqual(TranslationMemory.words(of: "删除文件"), ["删除", "除文", "文件"])
        XCTAssertEqual(memory.suggestions(for: "删除全部文件", language: "fr").first?.text, "Supprimer tous les fichiers")
    }

    func testChangesAreFollowed() {
        var memory = memory([("a", "Open", "Ouvrir"), ("b", "Close", "Fermer")])
        memory.setSource("Close window", of: unit("b"))
        XCTAssertEqual(memory.suggestions(for: "Close", language: "fr").map(\.text), [], "its old source text is gone")
        XCTAssertEqual(memory.suggestions(for: "Close window", language: "fr").map(\.text), ["Fermer"])
        memory.setTranslation("Fermer la fenêtre", of: unit("b"), language: "fr")
        XCTAssertEqual(memory.suggestions(for: "Close window", language: "fr").map(\.text), ["Fermer la fenêtre"])
        memory.setTranslation(nil, of: unit("b"), language: "fr")
        XCTAssertEqual(memory.suggestions(for: "Close window", language: "fr"), [])
        memory.setSource("Open", of: unit("c", bundle: "/other"))
        memory.setTranslation("Ouvrir", of: unit("c", bundle: "/other"), language: "fr")
        memory.removeBundle("/app")
        XCTAssertEqual(memory.suggestions(for: "Open", language: "fr").map(\.unit), [unit("c", bundle: "/other")])
    }
}
