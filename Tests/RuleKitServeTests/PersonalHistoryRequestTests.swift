import Foundation
import RuleKitCore
import RuleKitHistory
import Testing

@testable import RuleKitServe

/// What a history request says, from a query or a JSON body: the same request either way, and a clear
/// message for what is not one.
@Suite struct PersonalHistoryRequestTests {
    @Test func aQueryIsDecodedAsFormsEncodeIt() throws {
        let q = try #require(PersonalHistoryRequest.parameters(query: "mask=%7B%22a%22%3A+%22x+y%22%7D&from=1&maskHash=7&to=&x"))
        #expect(q.map(\.0) == ["mask", "from", "maskHash", "to", "x"])
        #expect(q[0].1 == #"{"a": "x y"}"#)
        #expect(q[3].1 == "" && q[4].1 == "")
        #expect(PersonalHistoryRequest.parameters(query: "mask=%ZZ") == nil)
        #expect(PersonalHistoryRequest.parameters(query: "")?.isEmpty == true)
    }

    @Test func aQueryAndABodyMakeTheSameRequest() throws {
        let mask: ValueObject = ["visit.page": "home"]
        let fromQuery = PersonalHistoryRequest.parse(
            identity: "ada",
            query: [("mask", #"{"visit.page":"home"}"#), ("maskHash", "7"), ("from", "2026-01-01"), ("to", "1800000000000")])
        let fromBody = PersonalHistoryRequest.parse(
            body: ["identity": "ada", "masks": [.object(mask)], "maskHashes": [.double(7)], "from": "2026-01-01", "to": 1_800_000_000_000])
        let expected = PersonalHistoryRequest(
            identity: "ada", hashes: [HistoryErasure.maskHash(mask), 7], from: 1_767_225_600_000, to: 1_800_000_000_000)
        #expect(try fromQuery.get() == expected)
        #expect(try fromBody.get() == expected)
        #expect(try PersonalHistoryRequest.parse(body: ["identity": "ada"]).get() == PersonalHistoryRequest(identity: "ada"))
    }

    @Test func whatIsNotARequestSaysWhy() {
        func message(_ r: Result<PersonalHistoryRequest, PersonalHistoryRequest.Problem>) -> String {
            if case .failure(let p) = r { return p.message }
            return "accepted"
        }
        #expect(
            message(PersonalHistoryRequest.parse(body: ["identity": "a", "maskHashes": [.double(1.5)]])).contains("must be an integer"))
        #expect(message(PersonalHistoryRequest.parse(body: ["identity": "a", "maskHashes": [.double(-1)]])).contains("must be an integer"))
        #expect(
            message(PersonalHistoryRequest.parse(body: ["identity": "a", "maskHashes": [.int(-1)]])).contains("a mask hash is a number"))
        #expect(message(PersonalHistoryRequest.parse(identity: String(repeating: "x", count: 1025), query: [])).contains("1 to 1024 bytes"))
        #expect(message(PersonalHistoryRequest.parse(identity: "a", query: [("from", "nan")])).contains("from takes ISO 8601"))
        #expect(message(PersonalHistoryRequest.parse(identity: "a", query: [("from", "inf")])).contains("from takes ISO 8601"))
    }
}
