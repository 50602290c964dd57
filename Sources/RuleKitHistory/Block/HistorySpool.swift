// The durable spool of history records the store could not take: a file of JSON lines, appended and
// synced before a block is answered, read back at start, replayed in order. Records keep their keys, so
// a replay that the store had in fact already taken (an answer lost on the way back, a crash between a
// replay and the rewrite of the file) keeps each record once.
internal import Foundation
internal import RuleKitCore

/// Why history could not be made durable.
public enum HistoryUnavailable: Error, Sendable, Equatable {
    /// The spool is full: the block's records cannot be kept anywhere.
    case spoolFull(capacity: Int)
    /// The spool file cannot be written.
    case spoolUnwritable(String)
}

/// Records waiting for the store, in memory and in a file that survives a restart.
final class HistorySpool: @unchecked Sendable {
    // Only used by `HistoryGate` (an actor): never from two threads at once.
    let file: URL?
    let capacity: Int
    private(set) var records: [HistoryRecord] = []

    /// Opens the spool at `file` (nil: memory only), reading what an earlier run left; a torn last line
    /// (a crash while appending) is dropped: its block was never answered.
    init(file: URL?, capacity: Int) throws(DiagnosticError) {
        self.file = file
        self.capacity = capacity
        guard let file, FileManager.default.fileExists(atPath: file.path) else { return }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw DiagnosticError(.error("history.spool", "the history spool '\(file.path)' cannot be read"))
        }
        var lineStart = data.startIndex
        for i in data.indices where data[i] == 0x0A {
            if let r = Self.decode(Array(data[lineStart..<i])) { records.append(r) }
            lineStart = i + 1
        }
    }

    var count: Int { records.count }

    /// Appends `new` and syncs the file: on return they survive a crash.
    func append(_ new: [HistoryRecord]) throws(HistoryUnavailable) {
        guard !new.isEmpty else { return }
        guard records.count + new.count <= capacity else { throw .spoolFull(capacity: capacity) }
        if let file {
            var bytes: [UInt8] = []
            for r in new { Self.encode(r, to: &bytes) }
            do {
                if !FileManager.default.fileExists(atPath: file.path) {
                    guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
                        throw HistoryUnavailable.spoolUnwritable("cannot create '\(file.path)'")
                    }
                }
                let handle = try FileHandle(forWritingTo: file)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(bytes))
                try handle.synchronize()
            } catch let e as HistoryUnavailable {
                throw e
            } catch {
                throw .spoolUnwritable("'\(file.path)': \(error.localizedDescription)")
            }
        }
        records += new
    }

    /// Forgets the first `n` records (the store took them), rewriting the file with the rest.
    func dropFirst(_ n: Int) throws(HistoryUnavailable) {
        let rest = Array(records.dropFirst(n))
        if let file {
            var bytes: [UInt8] = []
            for r in rest { Self.encode(r, to: &bytes) }
            let temp = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).tmp")
            do {
                try Data(bytes).write(to: temp)
                let handle = try FileHandle(forWritingTo: temp)
                try handle.synchronize()
                try handle.close()
                // rename(2) replaces the spool in one step: a crash leaves the old file or the new one.
                guard rename(temp.path, file.path) == 0 else {
                    throw HistoryUnavailable.spoolUnwritable("cannot replace '\(file.path)': \(String(cString: strerror(errno)))")
                }
            } catch let e as HistoryUnavailable {
                throw e
            } catch {
                throw .spoolUnwritable("'\(file.path)': \(error.localizedDescription)")
            }
        }
        records = rest
    }

    static func encode(_ r: HistoryRecord, to out: inout [UInt8]) {
        let o: ValueObject = [
            "i": .string(r.identity), "h": .int(Int64(r.hash)), "t": .double(r.ms), "k": .string(r.key),
        ]
        out += JSONWriter.string(.object(o)).utf8
        out.append(0x0A)
    }

    static func decode(_ line: [UInt8]) -> HistoryRecord? {
        guard case .object(let o)? = try? JSONReader.read(line, file: "spool").value, case .string(let i)? = o["i"],
            let h = o["h"]?.intValue, let hash = UInt32(exactly: h), let t = o["t"]?.doubleValue ?? o["t"]?.intValue.map(Double.init),
            case .string(let k)? = o["k"]
        else { return nil }
        return HistoryRecord(identity: i, hash: hash, ms: t, key: k)
    }
}
