/// Rules that exercise history end to end, for the tests of every layer that keeps it (the hub's host,
/// block history, the service): each `visit` is recorded, and a `check` is marked `returning` once its
/// identity has visited `times` times or more.
public enum HistoryRules {
    /// The two rules, as items of a RuleKit YAML `rules:` list (to go after other items).
    public static func items(returningAt times: Int) -> String {
        """
          - id: record
            when: {key: ~type, eq: visit}
            then: [{history: {operation: insert, content: {visit: "yes"}}}]
          - id: returning
            when:
              all:
                - {key: ~type, eq: check}
                - history: {events: [{visit: "yes"}], matcher: ge, value: \(times)}
            then: [{add: {returning: true}}]

        """
    }

    /// A rules file of the two, `returning` from the second visit.
    public static let visits = "rules:\n" + items(returningAt: 2)
}
