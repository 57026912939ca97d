#if canImport(Glibc)
import Glibc
#endif
import CInotifyTools
import Foundation
import LprojPaths

/// One batch's events coalesced: a later event about a file replaces an earlier one; directory events keep their order.
extension WatchLoop {
    /// Later events about a file replace earlier ones within a batch (paths
    /// compared by bytes), except that directory events and overflow are
    /// kept in order.
    static func coalesce(_ events: [FileEvent]) -> [FileEvent] {
        var lastIndex: [ExactName: Int] = [:]
        for (index, event) in events.enumerated() {
            switch event {
            case .written(let path), .removed(let path), .modified(let path), .listed(let path): lastIndex[ExactName(path)] = index
            default: break
            }
        }
        var result: [FileEvent] = []
        for (index, event) in events.enumerated() {
            switch event {
            case .written(let path), .removed(let path), .modified(let path), .listed(let path):
                if lastIndex[ExactName(path)] == index { result.append(event) }
            case .overflow:
                if !result.contains(.overflow) { result.append(event) }
            default:
                result.append(event)
            }
        }
        return result
    }
}
