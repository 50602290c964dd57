import Testing

@testable import RuleKitXDM

/// Paths are normalized as the segment-by-segment form does, plain ones returned as they are.
@Suite struct XDMPathCatalogTests {
    @Test(arguments: [
        "xdm.commerce.order.priceTotal", "productListItems.0.SKU", "items[0].SKU", "a.12", "0", "", ".", "a..b",
        "a.0.0.b", "a.b.", ".a", "a.0b.c", "a.b0", "café.0", "a.٣.b", "a.½", "x[", "x[1]", "a.[2]", "12.x",
    ])
    func plainPathsComeBackAsTheyAre(path: String) {
        #expect(XDMPathCatalog.normalize(path) == XDMPathCatalog.indexedNormalize(path))
    }

    @Test func indexesBecomeStars() {
        #expect(XDMPathCatalog.normalize("items.0.SKU") == "items[*].SKU")
        #expect(XDMPathCatalog.normalize("items[3].SKU") == "items[*].SKU")
        #expect(XDMPathCatalog.normalize("web.webPageDetails.URL") == "web.webPageDetails.URL")
    }
}
