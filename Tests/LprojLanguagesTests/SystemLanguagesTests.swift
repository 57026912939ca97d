@testable import LprojLanguages
import XCTest

final class SystemLanguagesTests: XCTestCase {
    func testGettextOrder() {
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LANG": "zh_TW.UTF-8"]), ["zh-TW"])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LANGUAGE": "fr_CA:fr:en", "LANG": "de_DE.UTF-8"]), ["fr-CA", "fr", "en", "de-DE"])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LC_ALL": "ja_JP.UTF-8", "LC_MESSAGES": "ko_KR", "LANG": "en_US"]), ["ja-JP"])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LC_MESSAGES": "ko_KR.UTF-8", "LANG": "en_US"]), ["ko-KR"])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LC_ALL": "", "LANG": "pt_BR.UTF-8"]), ["pt-BR"])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LANG": "de_DE@euro"]), ["de-DE"])
    }

    func testPOSIXLocaleMeansNoPreference() {
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LANG": "C"]), [])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LANG": "C.UTF-8", "LANGUAGE": "fr"]), [])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LC_ALL": "POSIX"]), [])
        XCTAssertEqual(SystemLanguages.preferences(environment: [:]), [])
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LANGUAGE": "fr"]), [])
    }

    func testDuplicatesAndJunkAreDropped() {
        XCTAssertEqual(SystemLanguages.preferences(environment: ["LANGUAGE": "en_US:en-US::C:1x", "LANG": "en_US.UTF-8"]), ["en-US"])
    }
}
