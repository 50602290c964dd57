import Foundation
import RuleKitCore
import Testing

@testable import RuleKitExtension

/// The hub id an input event's `id` text gets: it keys the history the event causes, so a text must get the
/// same id in every release (a batch retried across an upgrade is still recorded once).
@Suite struct EventJSONTests {
    @Test(arguments: [
        // A UUID, in either case.
        ("358b3f29-7afe-4200-8973-e880557CD851", "358B3F29-7AFE-4200-8973-E880557CD851"),
        // Texts Foundation reads as UUIDs though they are not canonical: as it reads them.
        ("358b3f29-7afe-4200-8973-e880557cd8 1", "358B3F29-7AFE-4200-8973-E880557CD801"),
        ("0x8b3f29-7afe-4200-8973-e880557cd851", "008B3F29-7AFE-4200-8973-E880557CD851"),
        // Any other text: an id made from its bytes (the values the release before this test made).
        ("order-1", "DEE4809F-34BE-886D-9268-05675A681A41"),
        ("358b3f29-7afe-4200-8973-e880557cd85g", "AE96BCA6-F6A5-8E8C-9474-1392B1BB0C4B"),
    ])
    func anIdTextGetsTheIdItAlwaysGot(_ text: String, _ id: String) {
        #expect(EventJSON.eventID(text).uuidString == id)
    }
}
