/// What leaves the shop (`printers`, `webhooks`, `outbox.*`, CONTRACT section 16), one constant each; listed in
/// ``ConfigurationSchema/keys``.
extension ConfigurationKey {
    /// `printers`.
    static let printers = ConfigurationKey(
        path: "printers", kind: .entries, defaultText: "none",
        allowed:
            "a list of {name, address: HOST:PORT, columns: 32|42|48, items: [kinds, products, categories], "
            + "events: [placed, cancelled, …], reports: true|false}",
        applied: .onRestart,
        summary:
            "Kitchen printers (ESC/POS over TCP, usually port 9100): a ticket for each order placed, a cancellation "
            + "for each cancelled, in order, waiting while a printer is off; with reports: true, each Z report. "
            + "Names are unique across printers and "
            + "webhooks. See OPERATIONS.md, \"Printers\".")

    /// `webhooks`.
    static let webhooks = ConfigurationKey(
        path: "webhooks", kind: .entries, defaultText: "none",
        allowed: "a list of {name, url, secretFile, events: [created, placed, …], allowPrivate: true|false}",
        applied: .onRestart,
        summary:
            "Signed Standard Webhooks POSTs of each change, in order, retried for three days. secretFile holds one "
            + "whsec_ secret per line (two while rotating). See OPERATIONS.md, \"Webhooks\".")

    /// `outbox.retryScale`.
    static let outboxRetryScale = ConfigurationKey(
        path: "outbox.retryScale", kind: .text, defaultValue: "1",
        allowed: "a number from 0.0001 to 10", applied: .onRestart,
        summary:
            "Multiplies the webhooks' retry schedule (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h): "
            + "small in tests, 1 in a shop.")

    /// `outbox.printerLimitMinutes`.
    static let outboxPrinterLimitMinutes = ConfigurationKey(
        path: "outbox.printerLimitMinutes", kind: .integer(range: 1...10_080, noun: "a whole number of minutes"),
        defaultValue: "240", allowed: "", applied: .onRestart,
        summary:
            "A printer failing for longer than this is disabled (logged at priority err, pizzad_outbox_disabled) "
            + "until pizzactl outbox retry NAME; until then, its tickets wait and are tried every 2 seconds.")

    /// `outbox.webhookTimeoutSeconds`.
    static let outboxWebhookTimeoutSeconds = ConfigurationKey(
        path: "outbox.webhookTimeoutSeconds", kind: .integer(range: 1...120, noun: "a whole number of seconds"),
        defaultValue: "10", allowed: "", applied: .onRestart,
        summary: "The longest one webhook attempt may take, connecting (at most 5 s of it) and the answer included.")
}
