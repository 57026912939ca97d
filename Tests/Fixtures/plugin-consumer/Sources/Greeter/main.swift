import Foundation

// Prints each key's text in each language named, as Foundation's Bundle
// reads it from the module's resource bundle, then the bundle's path.
let keys = ["Done", "Welcome, %@", "Only in English"]
for language in CommandLine.arguments.dropFirst() {
    guard let path = Bundle.module.path(forResource: language, ofType: "lproj"), let bundle = Bundle(path: path) else {
        print("\(language)\tno \(language).lproj in \(Bundle.module.bundlePath)")
        continue
    }
    for key in keys {
        print("\(language)\t\(key)\t\(bundle.localizedString(forKey: key, value: "(missing)", table: nil))")
    }
}
print("bundle\t\(Bundle.module.bundlePath)")
