import Foundation

// Prints each key's text in each language named, as Foundation's Bundle
// reads it from the module's resource bundle, then the bundle's path.
// `--plural LANGUAGE` looks up a plural key instead (a .stringsdict entry).
var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--plural", arguments.count == 2 {
    let path = Bundle.module.path(forResource: arguments[1], ofType: "lproj")!
    let format = Bundle(path: path)!.localizedString(forKey: "items", value: nil, table: nil)
    print(String.localizedStringWithFormat(format, 3))
    exit(0)
}
let keys = ["Done", "Welcome, %@", "Only in English"]
for language in arguments {
    guard let path = Bundle.module.path(forResource: language, ofType: "lproj"), let bundle = Bundle(path: path) else {
        print("\(language)\tno \(language).lproj in \(Bundle.module.bundlePath)")
        continue
    }
    for key in keys {
        print("\(language)\t\(key)\t\(bundle.localizedString(forKey: key, value: "(missing)", table: nil))")
    }
}
print("bundle\t\(Bundle.module.bundlePath)")
