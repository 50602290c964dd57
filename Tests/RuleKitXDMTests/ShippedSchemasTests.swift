import Foundation
import RuleKitCore
import RuleKitTestSupport
import Testing

@testable import RuleKitXDM

/// The XDM schemas in `Schemas/`: they load with every reference resolved, each field group's SDK-form
/// example validates against the class composed with it, and realistic bad payloads fail at their paths.
@Suite struct ShippedSchemasTests {
    static let ee = "https://rulekit.dev/xdm/sdk/experienceevent"
    static func registry() throws -> XDMRegistry {
        try XDMRegistry(folder: SharedCorpus.repositoryRoot.appendingPathComponent("Schemas"))
    }

    static func example(_ name: String) throws -> Value {
        let url = SharedCorpus.repositoryRoot.appendingPathComponent("Schemas/examples/\(name).example.json")
        return try JSONReader.read(try #require(SharedCorpus.bytes(url))).value
    }

    @Test func schemasLoadWithEveryReferenceResolved() throws {
        let xdm = try Self.registry()
        #expect(xdm.unresolved.isEmpty, "\(xdm.unresolved)")
        #expect(xdm.fieldGroups(for: Self.ee).count == 8)
    }

    @Test(arguments: [
        "identitymap", "environment-details", "web-details", "commerce-details", "application-details",
        "implementation-details", "marketing", "consent",
    ])
    func eachFieldGroupExampleValidates(_ group: String) throws {
        let xdm = try Self.registry()
        let schema = try xdm.compose(class: Self.ee, fieldGroups: ["https://rulekit.dev/xdm/sdk/\(group)"])
        let errors = schema.validator.validate(try Self.example(group))
        #expect(errors.isEmpty, "\(group): \(errors)")
    }

    @Test func theClassExampleWithTenantFieldsValidates() throws {
        let schema = try Self.registry().compose(class: Self.ee)
        #expect(schema.validator.validate(try Self.example("experienceevent")).isEmpty)
    }

    static let invalid: [(String, String, @Sendable (inout Value) -> Void, String)] = [
        ("commerce-details", "negative price", { $0.setValue(-5, atPath: "commerce.order.priceTotal") }, "/commerce/order/priceTotal"),
        (
            "commerce-details", "quantity as text", { $0.setValue("2", atPath: "productListItems.0.quantity") },
            "/productListItems/0/quantity"
        ),
        (
            "commerce-details", "lowercase currency", { $0.setValue("gbp", atPath: "commerce.order.currencyCode") },
            "/commerce/order/currencyCode"
        ),
        ("environment-details", "unknown device type", { $0.setValue("phone", atPath: "device.type") }, "/device/type"),
        (
            "environment-details", "latitude out of range", { $0.setValue(91.5, atPath: "placeContext.geo.latitude") },
            "/placeContext/geo/latitude"
        ),
        (
            "web-details", "relative page URL", { $0.setValue("/products/p1.html", atPath: "web.webPageDetails.URL") },
            "/web/webPageDetails/URL"
        ),
        ("identitymap", "identity without id", { $0.setValue(nil, atPath: "identityMap.ECID.0.id") }, "/identityMap/ECID/0"),
        ("consent", "unknown consent value", { $0.setValue("yes", atPath: "consents.collect.val") }, "/consents/collect/val"),
        ("application-details", "bad timestamp", { $0.setValue("22/11/2026", atPath: "timestamp") }, "/timestamp"),
        ("marketing", "missing _id", { $0.setValue(nil, atPath: "_id") }, ""),
    ]

    @Test(arguments: invalid.indices)
    func realisticBadPayloadsFailAtTheirPath(_ i: Int) throws {
        let (group, what, mutate, path) = Self.invalid[i]
        var payload = try Self.example(group)
        mutate(&payload)
        let schema = try Self.registry().compose(class: Self.ee, fieldGroups: ["https://rulekit.dev/xdm/sdk/\(group)"])
        let errors = schema.validator.validate(payload)
        #expect(errors.contains { $0.instancePath == path }, "\(what): \(errors)")
        #expect(!schema.validator.isValid(payload))
    }

    @Test func theCatalogListsSDKFormPaths() throws {
        let xdm = try Self.registry()
        let schema = try xdm.compose(class: Self.ee, fieldGroups: xdm.fieldGroups(for: Self.ee))
        let c = schema.catalog
        #expect(c.leaf("commerce.order.priceTotal")?.type == "number")
        #expect(c.leaf("productListItems.0.SKU")?.type == "string")
        #expect(c.leaf("web.webPageDetails.URL")?.format == "uri")
        #expect(c.leaf("timestamp")?.format == "date-time")
        #expect(c.leaf("device.type")?.enumValues?.contains("mobile") == true)
        #expect(try XDMCoercion.coerce("959.45", at: "commerce.order.priceTotal", in: c).get() == 959.45)
        #expect(try XDMCoercion.coerce("1700000000000", at: "timestamp", in: c).get() == "2023-11-14T22:13:20Z")
        #expect(try XDMCoercion.coerce("true", at: "application.isLaunch", in: c).get() == true)
    }
}
